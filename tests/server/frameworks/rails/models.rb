# The models (app/models/order.rb, app/models/event.rb).
class Order < ActiveRecord::Base
  # IDs are above 2^53: JSON for JavaScript clients carries them as strings.
  def as_json(options = nil)
    super.merge('id' => id&.to_s)
  end
end

class Event < ActiveRecord::Base
  # ActiveRecord does not know the snowflake type (its OID is the database's
  # own) and would read the key as a String: read it as an 8-byte Integer.
  attribute :id, :integer, limit: 8

  def as_json(options = nil)
    super.merge('id' => id&.to_s)
  end
end

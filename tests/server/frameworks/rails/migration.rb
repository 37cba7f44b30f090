# The schema, in ActiveRecord's migration language (db/migrate/..._create_orders.rb).
class CreateOrders < ActiveRecord::Migration[6.1]
  def change
    # A bigint key the database fills: id bigint PRIMARY KEY DEFAULT snowflake_nextval()
    create_table :orders, id: :bigint, default: -> { 'snowflake_nextval()' } do |t|
      t.text :note
    end
    # A key of the extension's snowflake type: ActiveRecord writes the type's name as it is.
    create_table :events, id: :snowflake, default: -> { 'snowflake_nextval()' } do |t|
      t.text :note
    end
  end
end

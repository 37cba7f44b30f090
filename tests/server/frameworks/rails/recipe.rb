# The Rails recipes (docs/frameworks/rails.md): ActiveRecord 6.1 without Rails,
# against SF_DB, a database with the extension and nothing else.
require 'active_record'
require 'json'
require 'English'
require 'pg'

$stdout.sync = true
def check(what)
  abort "FAIL: #{what}" unless yield

  puts "ok: #{what}"
end
# An exception outside a check: its trace, then a FAIL line last (the suite shows the last line).
at_exit do
  error = $ERROR_INFO
  next if error.nil? || error.is_a?(SystemExit)

  warn error.full_message(highlight: false)
  puts "FAIL: #{error.class}: #{error.message.lines.first&.strip}"
  exit! 1
end

ActiveRecord::Base.establish_connection(adapter: 'postgresql', host: ENV.fetch('SF_SOCKDIR'),
                                        port: ENV.fetch('SF_PORT').to_i, username: 'postgres',
                                        database: ENV.fetch('SF_DB'))
ActiveRecord::Migration.verbose = false
require_relative 'migration'
require_relative 'models'
CreateOrders.migrate(:up)

# A separate connection, not ActiveRecord's: what the database stored.
raw = PG.connect(host: ENV.fetch('SF_SOCKDIR'), port: ENV.fetch('SF_PORT'), user: 'postgres',
                 dbname: ENV.fetch('SF_DB'))
stored = ->(table, note) { raw.exec_params("SELECT id::text FROM #{table} WHERE note = $1", [note]).column_values(0) }

check('the migration made orders.id bigint DEFAULT snowflake_nextval() and events.id snowflake') do
  raw.exec("SELECT string_agg(format('%s %s %s', attrelid::regclass, format_type(atttypid, atttypmod),
                                     pg_get_expr(adbin, adrelid)), ', ' ORDER BY attrelid::regclass::text)
              FROM pg_attribute JOIN pg_attrdef ON adrelid = attrelid AND adnum = attnum
             WHERE attrelid IN ('orders'::regclass, 'events'::regclass) AND attname = 'id'").getvalue(0, 0) ==
    'events snowflake snowflake_nextval(), orders bigint snowflake_nextval()'
end

# 1. The bigint key: create reads the generated key back (INSERT ... RETURNING "id").
order = Order.create!(note: 'first order')
check("Order.create! returns the stored key (#{order.id})") { [order.id.to_s] == stored.call('orders', 'first order') }
check('the bigint key is an Integer above 2^53') { order.id.is_a?(Integer) && order.id > 2**53 }
check('Order.find finds it') { Order.find(order.id).note == 'first order' }

# 2. The snowflake key, read as an Integer through the attribute override.
event = Event.create!(note: 'first event')
check("Event.create! returns the stored key (#{event.id}) as an Integer") do
  event.id.is_a?(Integer) && [event.id.to_s] == stored.call('events', 'first event')
end
check('a fetched snowflake key is an Integer too') do
  fetched = Event.find(event.id)
  fetched.id.is_a?(Integer) && fetched.id == event.id
end
check('Event.find takes the id as a string too (a request parameter)') { Event.find(event.id.to_s).id == event.id }
check('update and destroy by a snowflake key work') do
  event.update!(note: 'first event, renamed')
  Event.create!(note: 'doomed').destroy!
  stored.call('events', 'first event, renamed') == [event.id.to_s] && stored.call('events', 'doomed').empty?
end

# Trap: without the override the snowflake key is a String (and ActiveRecord
# warns "unknown OID ...: failed to recognize type of 'id'").
class PlainEvent < ActiveRecord::Base
  self.table_name = 'events'
end
check('trap: without the attribute override the snowflake key reads as a String') do
  PlainEvent.find_by(note: 'first event, renamed').id == event.id.to_s
end

# ... so a range from a key the model read to an Integer is no range at all.
check('trap: without the override, where(id: read_key..an_integer) raises "bad value for range"') do
  plain = PlainEvent.find_by(note: 'first event, renamed')
  PlainEvent.where(id: plain.id..(event.id + 1)).to_a
  false
rescue ArgumentError => e
  e.message == 'bad value for range'
end

check('trap: a query outside the model reads the snowflake key as a String') do
  ActiveRecord::Base.connection.select_value('SELECT id FROM events') == event.id.to_s
end

# Trap: :integer alone is ActiveModel's 4-byte integer; create! raises after
# the INSERT, which its transaction rolls back.
class NarrowEvent < ActiveRecord::Base
  self.table_name = 'events'
  attribute :id, :integer
end
check('trap: attribute :id, :integer without limit: 8 fails create! with ActiveModel::RangeError') do
  NarrowEvent.create!(note: 'narrow')
  false
rescue ActiveModel::RangeError => e
  e.message.include?('limit 4 bytes') && stored.call('events', 'narrow').empty?
end

# Trap: schema.rb (rails db:schema:dump) leaves out a table with a snowflake column.
schema = StringIO.new
ActiveRecord::SchemaDumper.dump(ActiveRecord::Base.connection, schema)
check('trap: schema.rb has orders but not events ("Unknown type \'snowflake\'")') do
  schema.string.include?('create_table "orders", id: :bigint, default: -> { "snowflake_nextval()" }') &&
    !schema.string.include?('create_table "events"') &&
    schema.string.include?("Could not dump table \"events\" because of following StandardError\n" \
                           "#   Unknown type 'snowflake' for column 'id'")
end

# The way out: structure.sql (config.active_record.schema_format = :sql), which
# pg_dump writes, keeps the type; db:structure:load rebuilds the table from it.
structure = File.join(ENV.fetch('SF_STACK_WORK'), 'structure.sql')
ActiveRecord::Tasks::DatabaseTasks.structure_dump(ActiveRecord::Base.connection_db_config, structure)
check('structure.sql has events.id as public.snowflake DEFAULT public.snowflake_nextval()') do
  File.read(structure).include?('id public.snowflake DEFAULT public.snowflake_nextval() NOT NULL')
end
copy = "#{ENV.fetch('SF_DB')}_structure"
raw.exec("CREATE DATABASE #{copy}")
copy_config = ActiveRecord::DatabaseConfigurations::HashConfig.new(
  'test', 'copy', ActiveRecord::Base.connection_db_config.configuration_hash.merge(database: copy)
)
# psql's --output: the file's own SELECT set_config(...) would print its result into the log.
ActiveRecord::Tasks::DatabaseTasks.structure_load_flags = ['--output=/dev/null']
ActiveRecord::Tasks::DatabaseTasks.structure_load(copy_config, structure)
check('structure.sql loads into an empty database, and its events take keys from snowflake_nextval()') do
  loaded = PG.connect(host: ENV.fetch('SF_SOCKDIR'), port: ENV.fetch('SF_PORT'), user: 'postgres', dbname: copy)
  loaded.exec("INSERT INTO events (note) VALUES ('loaded') RETURNING id::text").getvalue(0, 0).to_i > 2**53
ensure
  loaded&.close
end

# 3. Time filters. Rows composed at fixed past times, one a minute from t0.
t0 = Time.utc(2025, 1, 1, 12, 0, 0)
composed = {}
%w[orders events].each do |table|
  composed[table] = (0..5).map do |minute|
    raw.exec_params("INSERT INTO #{table} (id, note) VALUES (snowflake_compose($1, 1, 0), $2) RETURNING id::text",
                    [(t0 + minute * 60).iso8601, "composed #{minute}"]).getvalue(0, 0).to_i
  end
end
from = t0 + 60
to = t0 + 4 * 60
# The server's time before the inserts below, to the millisecond an ID carries.
since = ActiveRecord::Base.connection.select_value("SELECT date_trunc('milliseconds', clock_timestamp())")
minted = { 'orders' => [], 'events' => [] }
3.times do |i|
  minted['orders'] << Order.create!(note: "minted #{i}").id
  minted['events'] << Event.create!(note: "minted #{i}").id
end

# A bigint key: compare with the boundary functions.
in_window = Order.where('id >= snowflake_first_at_or_after(?) AND id < snowflake_first_at_or_after(?)', from, to)
recent = Order.where('id >= snowflake_first_at_or_after(?)', since)
check('orders in [t0+1min, t0+4min) are exactly the rows composed at minutes 1, 2 and 3') do
  in_window.order(:id).pluck(:id) == composed['orders'][1..3]
end
check('orders minted since the server time read before the inserts are exactly those') do
  recent.order(:id).pluck(:id) == minted['orders']
end

# A snowflake key: compare with a parameter typed timestamptz.
in_window = Event.where('id >= ?::timestamptz AND id < ?::timestamptz', from, to)
recent = Event.where('id >= ?::timestamptz', since)
check('events in [t0+1min, t0+4min) are exactly the rows composed at minutes 1, 2 and 3') do
  in_window.order(:id).pluck(:id) == composed['events'][1..3]
end
check('events minted since the server time read before the inserts are exactly those') do
  recent.order(:id).pluck(:id) == minted['events']
end

# Trap: a Time in where(id: range) is cast to the key's type, Integer: seconds
# since 1970, far below every ID, so every row matches and nothing fails.
trap = Order.where(id: from..)
check("trap: where(id: time..) compares with the Unix seconds (#{trap.to_sql[/>= \d+/]}) and returns every row") do
  trap.to_sql.include?(">= #{from.to_i}") && trap.count == Order.count && Order.count == 10
end
check('trap: where(id: time..) on the snowflake key with the Integer override returns every row too') do
  Event.where(id: from..).to_sql.include?(">= #{from.to_i}") && Event.where(id: from..).count == Event.count
end
# Trap: on a snowflake key, a time without ::timestamptz is read as a snowflake.
check('trap: a time compared with a snowflake key without ::timestamptz fails (22P02)') do
  Event.where('id >= ?', from).to_a
  false
rescue ActiveRecord::StatementInvalid => e
  e.cause.is_a?(PG::InvalidTextRepresentation) && e.message.include?('invalid input syntax for type snowflake')
end

# 4. JSON: the ids as strings, every digit.
json = Order.where(id: minted['orders']).order(:id).to_json
check("Order to_json carries every id as a string: #{json[0, 60]}...") do
  minted['orders'].all? { |id| id > 2**53 && json.include?(%("id":"#{id}")) } &&
    JSON.parse(json).map { |o| o['id'] } == minted['orders'].map(&:to_s)
end
json = Event.find(event.id).to_json
check("Event to_json carries the snowflake id as a string: #{json}") do
  json.include?(%("id":"#{event.id}")) && JSON.parse(json)['id'] == stored.call('events', 'first event, renamed').first
end
# Trap: ActiveRecord's own as_json writes an Integer id as a JSON number
# above 2^53, which JavaScript's JSON.parse rounds (docs/json.md).
class PlainOrder < ActiveRecord::Base
  self.table_name = 'orders'
end
check('trap: without the as_json override the id is a JSON number above 2^53') do
  PlainOrder.find(order.id).to_json.include?(%("id":#{order.id},))
end
check('as_json keeps the other attributes as they were') do
  Event.find(event.id).as_json.keys.sort == %w[id note]
end

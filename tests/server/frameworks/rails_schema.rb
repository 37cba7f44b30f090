# ActiveRecord's schema dump and schema load, as `rails db:schema:dump` and
# `rails db:schema:load` (after its purge, into an empty database) run them.
#
# Usage: rails_schema.rb SOCKDIR PORT dump DB FILE   writes DB's schema.rb to FILE
#        rails_schema.rb SOCKDIR PORT load DB FILE   loads FILE into DB; exits 3 if it fails
require 'active_record'

sockdir, port, action, db, file = ARGV
ActiveRecord::Base.establish_connection(adapter: 'postgresql', host: sockdir, port: port.to_i,
                                        username: 'postgres', database: db)
case action
when 'dump'
  File.open(file, 'w') { |f| ActiveRecord::SchemaDumper.dump(ActiveRecord::Base.connection, f) }
  puts "dumped #{db} to #{file}"
when 'load'
  ActiveRecord::Schema.verbose = false
  begin
    load file
  rescue StandardError => e
    puts "load into #{db} failed: #{e.class}: #{e.message.lines.first.strip}"
    exit 3
  end
  puts "loaded #{file} into #{db}"
else
  abort "rails_schema.rb: unknown action #{action}"
end

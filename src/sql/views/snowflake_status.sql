-- The view, in the schema snowflake_id (1.6; in the extension's schema
-- before): SELECT * FROM snowflake_status() reads the same row from the
-- function, where the extension's schema is in the search_path.
CREATE OR REPLACE VIEW snowflake_id.snowflake_status AS SELECT * FROM snowflake_status();

-- Readable by every role, like the function behind it (EXECUTE for PUBLIC,
-- as for every function) and like PostgreSQL's own pg_stat_* views: it shows
-- the node, the layout and counters, nothing of any table's contents.
GRANT SELECT ON snowflake_id.snowflake_status TO PUBLIC;

COMMENT ON VIEW snowflake_id.snowflake_status IS
'One row: the generator''s node, layout, last issued time, lead over the wall clock, reservation, counters since the server started, and the node id lease';

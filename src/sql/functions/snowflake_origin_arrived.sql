-- The trigger of snowflake_origin: rows that arrive (a restore) make every
-- database be checked again for restored IDs, once they are committed
-- (src/pg/pg_origins.cpp). Not for PUBLIC: a trigger of a user's table
-- calling it would make every database of the server check again at each
-- commit (the function refuses any table but snowflake_origin too).
CREATE OR REPLACE FUNCTION snowflake_origin_arrived() RETURNS trigger
AS 'MODULE_PATHNAME', 'snowflake_origin_arrived'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

REVOKE ALL ON FUNCTION snowflake_origin_arrived() FROM PUBLIC;

COMMENT ON FUNCTION snowflake_origin_arrived() IS
'Trigger of snowflake_origin: rows that arrive have every database checked again for IDs restored from another server';

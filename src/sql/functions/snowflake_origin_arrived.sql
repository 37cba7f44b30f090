-- The trigger of snowflake_origin: rows that arrive (a restore) make every
-- database be checked again for restored IDs, once they are committed
-- (src/pg/pg_origins.cpp).
CREATE OR REPLACE FUNCTION snowflake_origin_arrived() RETURNS trigger
AS 'MODULE_PATHNAME', 'snowflake_origin_arrived'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION snowflake_origin_arrived() IS
'Trigger of snowflake_origin: rows that arrive have every database checked again for IDs restored from another server';

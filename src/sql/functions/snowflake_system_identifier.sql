-- The server's system identifier (pg_control), as snowflake_origin records
-- it: pg_control_system() says the same but is not for every role.
CREATE OR REPLACE FUNCTION snowflake_system_identifier() RETURNS numeric
AS 'MODULE_PATHNAME', 'snowflake_system_identifier'
LANGUAGE C STABLE PARALLEL SAFE;

COMMENT ON FUNCTION snowflake_system_identifier() IS
'This server''s system identifier, as snowflake_origin records where a database''s data came from';

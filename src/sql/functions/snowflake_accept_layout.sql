-- VOLATILE and PARALLEL UNSAFE: it writes the state file and WAL. Only
-- superusers: it changes what every session's IDs mean. The function checks
-- too, so that a GRANT alone cannot open it up.
CREATE OR REPLACE FUNCTION snowflake_accept_layout() RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_accept_layout'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

REVOKE ALL ON FUNCTION snowflake_accept_layout() FROM PUBLIC;

COMMENT ON FUNCTION snowflake_accept_layout() IS
'Superuser only: accept the configured layout and epoch after a change, continuing above every ID issued before; returns the bound new IDs start from';

-- VOLATILE: every call returns a new ID. PARALLEL RESTRICTED: the generator
-- itself works from any process, but keeping calls in the leader keeps one
-- session's IDs in the order its rows are produced.
CREATE OR REPLACE FUNCTION snowflake_nextval() RETURNS bigint
AS 'MODULE_PATHNAME', 'snowflake_nextval'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION snowflake_nextval() IS
'Next Snowflake ID of this server: unique across servers with different node ids, strictly increasing on this server';

-- VOLATILE and PARALLEL RESTRICTED, like snowflake_nextval(). STRICT: a NULL
-- count returns no rows.
CREATE OR REPLACE FUNCTION snowflake_nextval(n integer) RETURNS SETOF bigint
AS 'MODULE_PATHNAME', 'snowflake_nextval_block'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION snowflake_nextval(integer) IS
'A block of n IDs (1 to 1000000) taken in one atomic step: strictly increasing, and no other session gets an ID between the first and the last';

CREATE OR REPLACE FUNCTION objectid_timestamp(objectid text) RETURNS timestamptz
AS 'MODULE_PATHNAME', 'objectid_timestamp'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION objectid_timestamp(text) IS
'The creation time (to the second) carried by a MongoDB ObjectId given as 24 hex digits';

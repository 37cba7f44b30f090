-- VOLATILE: a new ObjectId per call. PARALLEL SAFE: each process draws its
-- own random part and counter, as MongoDB's drivers do per process.
CREATE OR REPLACE FUNCTION objectid_generate() RETURNS text
AS 'MODULE_PATHNAME', 'objectid_generate'
LANGUAGE C VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION objectid_generate() IS
'A new MongoDB ObjectId as 24 lowercase hex digits: 4 bytes of seconds, 5 random bytes per process, a 3-byte counter';

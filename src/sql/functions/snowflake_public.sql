-- Public IDs (1.5): a keyed permutation of an ID written in Crockford's
-- base32, which hides the ID's time, node and count from whoever lacks the
-- key (docs/public-ids.md). With a key argument (16 bytes): IMMUTABLE, as
-- nothing else goes in. Without: the key in snowflake_id.public_key, which
-- only superusers can read or set; STABLE, as a changed setting changes the
-- results. C functions: no search_path to pin. The id is a bigint, so a
-- snowflake passes by its implicit cast; a negative one is refused.
CREATE OR REPLACE FUNCTION snowflake_public(id bigint, key bytea, prefix text DEFAULT '',
                                 check_symbol boolean DEFAULT false)
RETURNS text
AS 'MODULE_PATHNAME', 'snowflake_public_keyed'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION snowflake_public(id bigint, prefix text DEFAULT '',
                                 check_symbol boolean DEFAULT false)
RETURNS text
AS 'MODULE_PATHNAME', 'snowflake_public_default_key'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION snowflake_public(bigint, bytea, text, boolean) IS
'The public form of an ID under a 16-byte key: 13 symbols of Crockford''s base32 that hide its time, node and count, after prefix and "_" if given, and a check symbol if asked for; not authentication';
COMMENT ON FUNCTION snowflake_public(bigint, text, boolean) IS
'snowflake_public(id, key, ...) with the key in snowflake_id.public_key';

CREATE OR REPLACE FUNCTION snowflake_from_public(public_id text, key bytea, prefix text DEFAULT '',
                                      check_symbol boolean DEFAULT false)
RETURNS snowflake
AS 'MODULE_PATHNAME', 'snowflake_from_public_keyed'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION snowflake_from_public(public_id text, prefix text DEFAULT '',
                                      check_symbol boolean DEFAULT false)
RETURNS snowflake
AS 'MODULE_PATHNAME', 'snowflake_from_public_default_key'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_from_public(text, bytea, text, boolean) IS
'The ID of a public form, for the key, prefix and check_symbol it was made with; takes lower case, I and L for 1, O for 0, hyphens';
COMMENT ON FUNCTION snowflake_from_public(text, text, boolean) IS
'snowflake_from_public(public_id, key, ...) with the key in snowflake_id.public_key';

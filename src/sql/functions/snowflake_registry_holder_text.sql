-- A holder as the messages name it.
CREATE OR REPLACE FUNCTION snowflake_registry_holder_text(host text, port integer, data_directory text,
                                               system_id numeric)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, @extschema@, pg_temp AS $$
    SELECT format('%s:%s, data directory %s, system identifier %s', host, port,
                  data_directory, system_id)
$$;

COMMENT ON FUNCTION snowflake_registry_holder_text(text, integer, text, numeric) IS
'A lease holder as snowflake_id''s messages name it';

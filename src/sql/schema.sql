-- The schema snowflake_id (1.6) holds the extension's tables and views: the
-- registry's two tables, its view of the leases and the view
-- snowflake_status. The functions, the snowflake type, its operators and
-- casts stay in the extension's schema (@extschema@), which is usually the
-- application's public schema: the one that migration tools (Alembic,
-- Rails, drizzle-kit, TypeORM, Django) compare with the application's
-- models, and where they would plan to drop tables and views the extension
-- needs. As pg_cron keeps its tables in cron, the extension creates the
-- schema and owns it: pg_dump leaves it to CREATE EXTENSION, and DROP
-- EXTENSION drops it. An extension created in a schema named snowflake_id
-- (CREATE EXTENSION snowflake_id SCHEMA snowflake_id) keeps everything
-- there. Any other schema of that name is refused: it is not the
-- extension's, and its owner could plant or reach objects in it.
DO $$
DECLARE
    extension_schema oid := (SELECT e.extnamespace FROM pg_catalog.pg_extension e
                             WHERE e.extname OPERATOR(pg_catalog.=) 'snowflake_id');
    extension_schema_name name := (SELECT n.nspname FROM pg_catalog.pg_namespace n
                                   WHERE n.oid OPERATOR(pg_catalog.=) extension_schema);
    existing oid := pg_catalog.to_regnamespace('snowflake_id');
BEGIN
    IF existing IS NULL THEN
        CREATE SCHEMA snowflake_id;
        -- As for the extension's functions: USAGE only lets a role find
        -- what is there; each table and view keeps its own privileges
        -- (snowflake_status is readable by every role, the registry's
        -- tables by their owner and the roles granted them). Only on the
        -- schema made here: the privileges and comment of one that exists
        -- (an update, 1.7) are left as the DBA has them.
        GRANT USAGE ON SCHEMA snowflake_id TO PUBLIC;
        COMMENT ON SCHEMA snowflake_id IS
        'snowflake_id''s tables and views (the registry''s leases and layout, snowflake_status), apart from the schema of its functions and type';
    ELSIF existing OPERATOR(pg_catalog.<>) extension_schema
          -- Ours already (an update that runs this again, 1.7): kept.
          AND NOT EXISTS (SELECT FROM pg_catalog.pg_depend d
                          WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_namespace'::pg_catalog.regclass
                            AND d.objid OPERATOR(pg_catalog.=) existing
                            AND d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass
                            AND d.refobjid OPERATOR(pg_catalog.=) (SELECT e.oid FROM pg_catalog.pg_extension e
                                                                   WHERE e.extname OPERATOR(pg_catalog.=) 'snowflake_id')
                            AND d.deptype OPERATOR(pg_catalog.=) 'e') THEN
        RAISE EXCEPTION 'schema snowflake_id already exists'
            USING ERRCODE = 'duplicate_schema',
                  DETAIL = pg_catalog.format('snowflake_id 1.6 keeps its tables and views in '
                                             'a schema named snowflake_id that it creates and '
                                             'owns, apart from the schema of its functions '
                                             '(%I).', extension_schema_name),
                  HINT = 'Rename that schema (ALTER SCHEMA snowflake_id RENAME TO ...) or drop '
                         'it, or put the whole extension into it: CREATE EXTENSION snowflake_id '
                         'SCHEMA snowflake_id.';
    END IF;
END
$$;

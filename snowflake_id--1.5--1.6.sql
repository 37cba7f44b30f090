-- snowflake_id 1.5 -> 1.6: the extension's tables and views move into a
-- schema of its own, snowflake_id, out of the extension's schema (usually
-- the application's public schema, which migration tools manage): the
-- registry's tables snowflake_registry_lease and snowflake_registry_layout,
-- its view snowflake_registry_leases and the view snowflake_status. Their
-- rows, indexes, constraints, privileges and comments go with them (ALTER
-- TABLE ... SET SCHEMA), views of a user's own that read them keep
-- working, and pg_dump still dumps the registry's rows. The functions, the
-- type, its operators and casts stay where they are: snowflake_status() is
-- the function the view reads, unqualified as before.
\echo Use "ALTER EXTENSION snowflake_id UPDATE TO '1.6'" to load this file. \quit

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
        -- tables by their owner and the roles granted them).
        GRANT USAGE ON SCHEMA snowflake_id TO PUBLIC;
        COMMENT ON SCHEMA snowflake_id IS
        'snowflake_id''s tables and views (the registry''s leases and layout, snowflake_status), apart from the schema of its functions and type';
    ELSIF existing OPERATOR(pg_catalog.<>) extension_schema THEN
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

-- The lease table first. ALTER TABLE takes its ACCESS EXCLUSIVE lock, which
-- waits for a server's registry call in progress (each holds the table's
-- SHARE ROW EXCLUSIVE lock from its first statement to its COMMIT, and
-- reads the layout table under it) and holds off the calls that follow
-- until the update commits. A server of 1.6 then finds the table where it
-- went, by its membership in the extension, and makes its call again
-- (src/pg/registry/pg_registry_pq.cpp); a server before 1.6 names the
-- tables by the extension's schema and fails from now on: update the
-- servers first and the registry last, as docs/reference.md, "Upgrading a
-- fleet: servers first, the registry last" tells. Nothing moves if the
-- extension is in a schema named snowflake_id already. What moved is said
-- with a WARNING, not a NOTICE: PostgreSQL raises client_min_messages to
-- WARNING while an extension's script runs, and a query naming the view
-- unqualified fails after the update.
DO $$
DECLARE
    extension_schema oid := (SELECT e.extnamespace FROM pg_catalog.pg_extension e
                             WHERE e.extname OPERATOR(pg_catalog.=) 'snowflake_id');
BEGIN
    IF extension_schema OPERATOR(pg_catalog.=) pg_catalog.to_regnamespace('snowflake_id') THEN
        RETURN;
    END IF;
    ALTER TABLE @extschema@.snowflake_registry_lease SET SCHEMA snowflake_id;
    ALTER TABLE @extschema@.snowflake_registry_layout SET SCHEMA snowflake_id;
    ALTER VIEW @extschema@.snowflake_registry_leases SET SCHEMA snowflake_id;
    ALTER VIEW @extschema@.snowflake_status SET SCHEMA snowflake_id;
    RAISE WARNING 'the view snowflake_status moved into the schema snowflake_id'
        USING DETAIL = 'snowflake_id 1.6 keeps its tables and views in a schema of its own: '
                       'the view snowflake_status, and the registry''s tables '
                       'snowflake_registry_lease and snowflake_registry_layout and its view '
                       'snowflake_registry_leases. The functions and the snowflake type stay '
                       'where they were.',
              HINT = 'Read the status with SELECT * FROM snowflake_status() (the function, '
                     'where the view read it from), or SELECT * FROM '
                     'snowflake_id.snowflake_status (the view).';
END
$$;

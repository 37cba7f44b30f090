------------------------------------------------------------------------------
-- Restores never mint below what they restored (1.7). snowflake_nextval()
-- calls this before the first ID any backend issues in a database whose
-- snowflake_origin holds a row of another server not checked here (a
-- logical restore brought it; src/pg/pg_origins.cpp); a superuser may call
-- it too, every_column => true checking whatever the rows say (after
-- restoring a dump of 1.6, which carries no origin). It finds the largest
-- value of every column whose default calls snowflake_nextval(), raises
-- the generator's floor above it, durably, and marks the rows checked by
-- this server. Returns how many rows of other servers it found waiting.
--
-- SECURITY DEFINER: its owner (the superuser who created the extension)
-- reads every table, whoever's call issues the first ID. It runs no code
-- of the tables' owners: it reads columns of type bigint or snowflake of
-- ordinary tables, in their index order, with row security off; views,
-- foreign tables and expressions are not read. Values further ahead of the
-- clock than an hour are refused, not absorbed: rows anyone may insert
-- (snowflake_origin is writable, for restores run by a database's owner)
-- cannot carry this server's IDs far into the future.
CREATE OR REPLACE FUNCTION snowflake_check_restore(every_column boolean DEFAULT false)
RETURNS integer LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SECURITY DEFINER
-- Its search_path holds no schema a user may create in (the extension's
-- own, public by default, may be one): a function or operator there that
-- matched a call better would run as the owner. Its own objects are named
-- with their schema.
SET search_path = pg_catalog, pg_temp
SET row_security = off AS $$
DECLARE
    here constant numeric := @extschema@.snowflake_system_identifier();
    lead_limit_ms constant bigint := 3600000;
    waiting integer;
    origins text;
    col record;
    col_top bigint;
    top bigint;
    top_column text;
    floor_id bigint;
    failure text;
    -- For the hints: the schema of the functions, as a DBA types it.
    ext_schema constant text := (SELECT quote_ident(n.nspname)
                                 FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                                 WHERE e.extname = 'snowflake_id');
BEGIN
    IF every_column IS NULL THEN
        RAISE EXCEPTION 'snowflake_check_restore() takes no NULL argument'
            USING ERRCODE = '22004',
                  HINT = 'every_column is true (check whatever snowflake_origin says) or false.';
    END IF;
    SELECT count(*)::integer,
           string_agg(DISTINCT format('server %s (database %s)', o.system_identifier,
                                      quote_ident(o.database_name)), ', ')
    INTO waiting, origins
    FROM snowflake_id.snowflake_origin o
    WHERE o.system_identifier <> here AND o.checked_by IS DISTINCT FROM here;
    IF waiting = 0 AND NOT every_column THEN
        RETURN 0;
    END IF;
    origins := coalesce(origins, 'no server of snowflake_origin (every_column => true)');

    FOR col IN
        SELECT n.nspname, c.relname, a.attname
        FROM pg_attrdef d
        JOIN pg_depend dep ON dep.classid = 'pg_attrdef'::regclass AND dep.objid = d.oid
                          AND dep.refclassid = 'pg_proc'::regclass
                          AND dep.refobjid = '@extschema@.snowflake_nextval()'::regprocedure
        JOIN pg_class c ON c.oid = d.adrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace
        JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum
        WHERE c.relkind = 'r' AND NOT a.attisdropped AND a.attgenerated = ''
          AND a.atttypid IN ('bigint'::regtype, '@extschema@.snowflake'::regtype)
        ORDER BY n.nspname, c.relname, a.attname
    LOOP
        -- In the column's index order, where an index has it: the
        -- snowflake type's max() would go through bigint, past the index.
        BEGIN
            EXECUTE format('SELECT %1$I::bigint FROM ONLY %2$I.%3$I WHERE %1$I IS NOT NULL '
                           'ORDER BY %1$I DESC LIMIT 1', col.attname, col.nspname, col.relname)
                INTO col_top;
        EXCEPTION WHEN OTHERS THEN
            GET STACKED DIAGNOSTICS failure = MESSAGE_TEXT;
            RAISE EXCEPTION 'cannot check the IDs restored into database % from %',
                quote_ident(current_database()), origins
                USING ERRCODE = '55000',
                      DETAIL = format('Reading column %I of table %I.%I failed: %s (%s). '
                                      'snowflake_nextval() issues nothing in this database '
                                      'until the check passes: its IDs could sort below the '
                                      'restored ones.', col.attname, col.nspname, col.relname,
                                      failure, SQLSTATE),
                      HINT = format('Make the table readable and call snowflake_nextval() '
                                    'again, or have a superuser run SELECT '
                                    '%s.snowflake_raise_floor(<the largest ID in it>) and '
                                    'SELECT %s.snowflake_check_restore().',
                                    ext_schema, ext_schema);
        END;
        IF col_top IS NOT NULL AND (top IS NULL OR col_top > top) THEN
            top := col_top;
            top_column := format('column %I of table %I.%I', col.attname, col.nspname,
                                 col.relname);
        END IF;
    END LOOP;

    IF top IS NOT NULL THEN
        floor_id := @extschema@.snowflake_raise_floor(top, lead_limit_ms);
        IF floor_id IS NULL THEN
            RAISE EXCEPTION 'the IDs restored into database % lie more than an hour ahead of '
                            'this server''s clock', quote_ident(current_database())
                USING ERRCODE = '55000',
                      DETAIL = format('%s holds %s, of %s UTC, restored from %s; new IDs above it '
                                      'would be that far ahead of their time. snowflake_nextval() '
                                      'issues nothing in this database until this is settled.',
                                      top_column, top,
                                      to_char(@extschema@.snowflake_timestamp(top) AT TIME ZONE 'UTC',
                                              'YYYY-MM-DD HH24:MI:SS.MS'),
                                      origins),
                      HINT = format('If this server''s clock is right and those IDs are to stay, '
                                    'a superuser accepts them: SELECT %s.snowflake_raise_floor(%s); '
                                    'IDs then continue above them, ahead of the clock until it '
                                    'catches up. Otherwise correct the clock, or those values. '
                                    'docs/durability.md, "Logical restores".',
                                    ext_schema, top);
        END IF;
    END IF;

    -- Marked only where the transaction may write; the floor is durable
    -- either way, so a check repeated later finds nothing to raise. Rows
    -- another session is marking are left to it.
    IF current_setting('transaction_read_only') = 'off' THEN
        UPDATE snowflake_id.snowflake_origin o SET checked_by = here, checked_at = now()
        WHERE o.ctid IN (SELECT w.ctid FROM snowflake_id.snowflake_origin w
                         WHERE w.system_identifier <> here
                           AND w.checked_by IS DISTINCT FROM here
                         FOR UPDATE SKIP LOCKED);
        -- This server's own row: a dump of this database carries it, so
        -- that a restore elsewhere checks the IDs issued here.
        INSERT INTO snowflake_id.snowflake_origin (system_identifier, database_name)
        SELECT here, current_database()
        WHERE NOT EXISTS (SELECT FROM snowflake_id.snowflake_origin o
                          WHERE o.system_identifier = here);
    END IF;
    RETURN greatest(waiting, CASE WHEN every_column THEN 1 ELSE 0 END);
END
$$;

REVOKE ALL ON FUNCTION snowflake_check_restore(boolean) FROM PUBLIC;

COMMENT ON FUNCTION snowflake_check_restore(boolean) IS
'Raises the generator''s floor above every value of every column whose default calls snowflake_nextval(), where snowflake_origin shows data restored from another server (every_column: in any case); snowflake_nextval() calls it before a database''s first ID';

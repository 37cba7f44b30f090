------------------------------------------------------------------------------
-- Adopting an existing table (1.5). snowflake_adopt() switches a bigint
-- column filled by a sequence (bigserial, or DEFAULT nextval() of a
-- sequence), by an identity, or by the application (no default), to
-- DEFAULT snowflake_nextval(), in the caller's transaction, under an
-- ACCESS EXCLUSIVE lock taken before anything is checked, so no row with an
-- old-style value arrives between the check and the switch. The rules, and
-- why: docs/functions.md, "Adopting an existing table".
--
-- The collision bound: this server issues from now on only above the ID
-- the function mints, and a server minting into the table with its clock
-- up to max_clock_drift behind this one's issues from now() minus that on.
-- Every value already in the column must lie below both. now() is the
-- transaction's start: earlier than the clock, so stricter, and the same
-- instant a caller (or a test) computes the bound from.
--
-- A column adopted before without to_snowflake takes the type change alone
-- when asked for it: its values are the generator's own IDs, so no bound
-- applies. Check constraints on the column are evaluated for the IDs to
-- come, and sessions that may hold a plan returning the column's old type
-- are counted and warned of (docs/functions.md says why and what each
-- covers).
CREATE OR REPLACE FUNCTION snowflake_adopt(table_name regclass, column_name name,
                                to_snowflake boolean DEFAULT false,
                                drop_sequence boolean DEFAULT false)
RETURNS void LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, @extschema@, pg_temp
-- Every row counts, also those a forced row-level security policy hides
-- from the owner: with it off, such a table's check fails (42501) rather
-- than pass on the rows the owner sees.
SET row_security = off AS $$
DECLARE
    rel record;
    col record;
    qualified text;            -- the table, schema-qualified and quoted
    described text;            -- 'column "id" of table public.orders', for messages
    default_text text;
    def_oid oid;               -- the column's pg_attrdef row
    seq oid;                   -- the sequence of a nextval() default
    seq_name text;
    seq_users text;
    kind text;                 -- identity, sequence or none
    minted bigint;
    drift_ms bigint;
    bound bigint;
    bound_time timestamptz;
    top bigint;
    low bigint;
    top_time text;
    col_attnum smallint;
    new_type regtype;          -- the column's type once switched
    last_id constant bigint := 9223372036854775807;
    con record;
    candidate bigint;
    candidate_described text;
    verdict boolean;
    failure text;
    failure_detail text;
    sessions bigint;
BEGIN
    IF table_name IS NULL OR column_name IS NULL OR to_snowflake IS NULL
       OR drop_sequence IS NULL THEN
        RAISE EXCEPTION 'snowflake_adopt() takes no NULL argument'
            USING ERRCODE = '22004',
                  HINT = 'Name the table and the column; to_snowflake and drop_sequence are '
                         'true or false.';
    END IF;
    -- Under REPEATABLE READ or SERIALIZABLE the check below would read the
    -- column in the snapshot of the transaction's first statement, taken
    -- before the lock: rows committed while the lock was awaited would go
    -- unseen.
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION 'snowflake_adopt() needs a READ COMMITTED transaction, not %',
            upper(current_setting('transaction_isolation'))
            USING ERRCODE = '0A000',
                  DETAIL = 'It checks the column''s values after taking its lock; a snapshot '
                           'taken before the lock would miss rows committed meanwhile.',
                  HINT = 'Call it in a READ COMMITTED transaction (the default).';
    END IF;

    SELECT c.relname, c.relkind, c.relispartition, c.relowner, n.nspname INTO rel
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE c.oid = table_name;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'relation with OID % does not exist', table_name::oid
            USING ERRCODE = '42P01';
    END IF;
    qualified := format('%I.%I', rel.nspname, rel.relname);
    IF rel.relkind = 'p' OR rel.relispartition THEN
        RAISE EXCEPTION 'table % is %', qualified,
            CASE WHEN rel.relkind = 'p' THEN 'partitioned' ELSE 'a partition' END
            USING ERRCODE = '0A000',
                  DETAIL = 'snowflake_adopt() switches one table; a partitioned table''s '
                           'default lives on the parent and on every partition.',
                  HINT = 'Switch the parent and each child by hand, as '
                         'docs/functions.md, "Adopting an existing table" shows.';
    END IF;
    IF rel.relkind <> 'r' THEN
        RAISE EXCEPTION '% is not a table', qualified
            USING ERRCODE = '42809',
                  HINT = 'snowflake_adopt() switches a column of an ordinary table.';
    END IF;
    IF NOT pg_has_role(rel.relowner, 'USAGE') THEN
        RAISE EXCEPTION 'must be owner of table %', qualified
            USING ERRCODE = '42501',
                  HINT = 'snowflake_adopt() alters the table: call it as its owner.';
    END IF;

    EXECUTE format('LOCK TABLE %s IN ACCESS EXCLUSIVE MODE', qualified);

    IF EXISTS (SELECT FROM pg_inherits WHERE inhrelid = table_name OR inhparent = table_name) THEN
        RAISE EXCEPTION 'table % is part of an inheritance hierarchy', qualified
            USING ERRCODE = '0A000',
                  DETAIL = 'Its parent or children share the column, and their rows its values.',
                  HINT = 'Switch the parent and each child by hand, as '
                         'docs/functions.md, "Adopting an existing table" shows.';
    END IF;
    SELECT a.attnum, a.atttypid, a.attidentity, a.attgenerated, a.atthasdef INTO col
    FROM pg_attribute a
    WHERE a.attrelid = table_name AND a.attname = column_name AND a.attnum > 0
      AND NOT a.attisdropped;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'column % of table % does not exist', quote_ident(column_name), qualified
            USING ERRCODE = '42703';
    END IF;
    col_attnum := col.attnum;
    described := format('column %I of table %s', column_name, qualified);
    IF col.atttypid NOT IN ('bigint'::regtype, 'snowflake'::regtype) THEN
        RAISE EXCEPTION '% is of type %, not bigint', described, format_type(col.atttypid, NULL)
            USING ERRCODE = '42804',
                  DETAIL = 'Snowflake IDs take 64 bits.',
                  HINT = format('Change its type first (ALTER TABLE %s ALTER COLUMN %I TYPE '
                                'bigint, which rewrites the table), then adopt it.',
                                qualified, column_name);
    END IF;

    IF col.attidentity IN ('a', 'd') THEN
        kind := 'identity';
    ELSIF col.atthasdef THEN
        SELECT pg_get_expr(d.adbin, d.adrelid), d.oid INTO default_text, def_oid
        FROM pg_attrdef d WHERE d.adrelid = table_name AND d.adnum = col_attnum;
        IF col.attgenerated <> '' THEN
            RAISE EXCEPTION '% is generated: %', described, default_text
                USING ERRCODE = '55000',
                      HINT = 'snowflake_adopt() switches a column filled by a sequence, an '
                             'identity or the application.';
        END IF;
        IF EXISTS (SELECT FROM pg_depend
                   WHERE classid = 'pg_attrdef'::regclass AND objid = def_oid
                     AND refclassid = 'pg_proc'::regclass
                     AND refobjid = 'snowflake_nextval()'::regprocedure) THEN
            IF to_snowflake AND col.atttypid = 'bigint'::regtype AND NOT drop_sequence THEN
                kind := 'adopted';
            ELSE
                -- The sequence a bigserial kept stays OWNED BY the column.
                seq_name := pg_get_serial_sequence(qualified, column_name);
                RAISE EXCEPTION '% already defaults to %', described, default_text
                    USING ERRCODE = '55000',
                          HINT = CASE
                              WHEN drop_sequence THEN
                                  'It has been adopted already; drop_sequence acts only '
                                  'while adopting. '
                                  || CASE WHEN seq_name IS NULL
                                          THEN 'The column owns no sequence any more.'
                                          ELSE format('The sequence kept then goes with DROP '
                                                      'SEQUENCE %s, once no application '
                                                      'calls nextval() on it.', seq_name)
                                     END
                                  || CASE WHEN to_snowflake AND col.atttypid = 'bigint'::regtype
                                          THEN format(' snowflake_adopt(%L, %L, to_snowflake '
                                                      '=> true) converts it to the snowflake '
                                                      'type.', qualified, column_name)
                                          ELSE ''
                                     END
                              WHEN col.atttypid = 'bigint'::regtype THEN
                                  format('It has been adopted already: there is nothing to '
                                         'switch. snowflake_adopt(%L, %L, to_snowflake => '
                                         'true) converts it to the snowflake type.',
                                         qualified, column_name)
                              ELSE
                                  'It has been adopted already and is of type snowflake: '
                                  'there is nothing to switch.'
                          END;
            END IF;
        ELSE
            -- nextval() of one sequence and nothing else, as bigserial makes it.
            SELECT d.refobjid INTO seq FROM pg_depend d JOIN pg_class s ON s.oid = d.refobjid
            WHERE d.classid = 'pg_attrdef'::regclass AND d.objid = def_oid
              AND d.refclassid = 'pg_class'::regclass AND s.relkind = 'S';
            IF NOT FOUND OR default_text !~ '^nextval\(''.*''::regclass\)$' THEN
                RAISE EXCEPTION '% has a default other than a sequence''s nextval(): %',
                    described, default_text
                    USING ERRCODE = '55000',
                          HINT = format('snowflake_adopt() replaces only a sequence''s '
                                        'nextval() or an identity. Drop the default first if '
                                        'IDs should replace it (ALTER TABLE %s ALTER COLUMN %I '
                                        'DROP DEFAULT).', qualified, column_name);
            END IF;
            kind := 'sequence';
            SELECT format('%I.%I', n.nspname, c.relname) INTO seq_name
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = seq;
        END IF;
    ELSE
        kind := 'none';
    END IF;

    -- Rows in index order: the primary key's index answers both, for
    -- bigint and snowflake alike (max() of a snowflake would go through
    -- bigint, past the index).
    EXECUTE format('SELECT %1$I FROM %2$s WHERE %1$I IS NOT NULL ORDER BY %1$I DESC LIMIT 1',
                   column_name, qualified) INTO top;
    EXECUTE format('SELECT %1$I FROM %2$s WHERE %1$I IS NOT NULL ORDER BY %1$I LIMIT 1',
                   column_name, qualified) INTO low;
    IF to_snowflake AND low < 0 THEN
        RAISE EXCEPTION '% holds %, which the snowflake type cannot hold', described, low
            USING ERRCODE = '22003',
                  DETAIL = 'The snowflake type holds no negative value.',
                  HINT = 'Renumber the rows with negative values, or adopt the column without '
                         'to_snowflake (it stays bigint).';
    END IF;

    -- Raises, with its own hint, where the generator cannot issue (no
    -- preload, no worker id), and from here on this server issues only
    -- above this ID, also if its clock is later set back.
    minted := snowflake_nextval();
    SELECT setting::bigint INTO drift_ms FROM pg_settings WHERE name = 'snowflake_id.max_clock_drift';
    bound_time := now() - make_interval(secs => drift_ms / 1000.0);
    bound := least(snowflake_from_timestamp(bound_time), minted);
    IF kind <> 'adopted' AND top >= bound THEN
        BEGIN
            top_time := to_char(snowflake_timestamp(top) AT TIME ZONE 'UTC',
                                'YYYY-MM-DD HH24:MI:SS.MS"Z"');
        EXCEPTION WHEN datetime_field_overflow THEN
            top_time := 'past the end of the layout';
        END;
        RAISE EXCEPTION '% holds %, which snowflake_nextval() could issue again', described, top
            USING ERRCODE = '55000',
                  DETAIL = format('Its time by this server''s layout is %s; every value must lie '
                                  'below %s, the first ID of %s (now() minus '
                                  'snowflake_id.max_clock_drift, %s ms).', top_time, bound,
                                  to_char(bound_time AT TIME ZONE 'UTC',
                                          'YYYY-MM-DD HH24:MI:SS.MS"Z"'), drift_ms),
                  HINT = 'Renumber the rows at or above that bound, or adopt the column once '
                         'the clock has passed their time by more than '
                         'snowflake_id.max_clock_drift.';
    END IF;

    IF kind = 'identity' THEN
        -- Drops the identity's sequence with it.
        EXECUTE format('ALTER TABLE %s ALTER COLUMN %I DROP IDENTITY', qualified, column_name);
    END IF;
    IF kind <> 'adopted' THEN
        EXECUTE format('ALTER TABLE %s ALTER COLUMN %I SET DEFAULT snowflake_nextval()',
                       qualified, column_name);
    END IF;
    IF to_snowflake AND col.atttypid = 'bigint'::regtype THEN
        BEGIN
            EXECUTE format('ALTER TABLE %s ALTER COLUMN %I TYPE snowflake', qualified,
                           column_name);
        EXCEPTION WHEN feature_not_supported THEN
            -- A view, a rule, a generated column or a publication's row
            -- filter uses the column: PostgreSQL's message names it; the
            -- hint says what to do about it.
            GET STACKED DIAGNOSTICS failure = MESSAGE_TEXT, failure_detail = PG_EXCEPTION_DETAIL;
            RAISE EXCEPTION '%', failure
                USING ERRCODE = '0A000',
                      DETAIL = coalesce(nullif(failure_detail, ''),
                                        format('ALTER TABLE %s ALTER COLUMN %I TYPE snowflake '
                                               'was refused.', qualified, column_name)),
                      HINT = 'Adopt the column without to_snowflake (it stays bigint), or drop '
                             'what uses it, adopt it and create that again, all in one '
                             'transaction.';
        END;
    END IF;

    -- Every insert that takes the new default must pass the table's check
    -- constraints. The IDs to come lie between the bound and the layout's
    -- last ID, 2^63 - 1 whatever the layout (its fields fill 63 bits). A
    -- constraint on the column alone is evaluated at both ends, which
    -- settles the ranges such constraints state (id > x, id < y, BETWEEN);
    -- one that reads other columns too cannot be evaluated without their
    -- values. After the type change: PostgreSQL has rebuilt the
    -- constraints for the new type.
    SELECT a.atttypid INTO new_type FROM pg_attribute a
    WHERE a.attrelid = table_name AND a.attnum = col_attnum;
    FOR con IN
        SELECT c.conname, c.conkey <@ ARRAY[col_attnum] AS alone,
               pg_get_expr(c.conbin, c.conrelid) AS expr
        FROM pg_constraint c
        WHERE c.conrelid = table_name AND c.contype = 'c'
          AND (col_attnum = ANY (c.conkey) OR 0 = ANY (c.conkey))  -- 0: the whole row
        ORDER BY c.conname
    LOOP
        IF NOT con.alone THEN
            RAISE WARNING 'check constraint % of table % reads other columns than %: not checked',
                quote_ident(con.conname), qualified, quote_ident(column_name)
                USING DETAIL = format('snowflake_adopt() evaluates a check constraint only if '
                                      'it reads %I alone; whether %s holds for new IDs depends '
                                      'on the other values of each row.', column_name, con.expr),
                      HINT = format('Make sure it accepts the IDs to come, from %s to %s.',
                                    bound, last_id);
            CONTINUE;
        END IF;
        FOREACH candidate IN ARRAY ARRAY[bound, last_id] LOOP
            failure := NULL;
            BEGIN
                EXECUTE format('SELECT (%s) IS NOT FALSE FROM (SELECT $1::%s AS %I) AS new_row',
                               con.expr, new_type, column_name)
                    INTO verdict USING candidate;
            EXCEPTION WHEN OTHERS THEN
                GET STACKED DIAGNOSTICS failure = MESSAGE_TEXT;
                failure := format('raises "%s" (%s)', failure, SQLSTATE);
            END;
            IF failure IS NOT NULL OR NOT verdict THEN
                candidate_described := CASE candidate
                    WHEN last_id THEN
                        format('the last ID of the layout (%s)',
                               to_char(snowflake_timestamp(last_id) AT TIME ZONE 'UTC',
                                       'YYYY-MM-DD HH24:MI:SS.MS"Z"'))
                    ELSE
                        format('the first ID of %s (now() minus snowflake_id.max_clock_drift, '
                               '%s ms), the lowest a server may issue into the table from now on',
                               to_char(bound_time AT TIME ZONE 'UTC',
                                       'YYYY-MM-DD HH24:MI:SS.MS"Z"'), drift_ms)
                END;
                RAISE EXCEPTION 'check constraint % of table % rejects %, an ID '
                                'snowflake_nextval() may issue',
                    quote_ident(con.conname), qualified, candidate
                    USING ERRCODE = '55000',
                          DETAIL = format('Its expression %s %s for %s, %s: inserts that take the '
                                          'new default would fail.', con.expr,
                                          coalesce(failure, 'is false'), candidate,
                                          candidate_described),
                          HINT = format('Drop the constraint (ALTER TABLE %s DROP CONSTRAINT %I) '
                                        'or make it accept every ID from %s to %s, then adopt '
                                        'the column.', qualified, con.conname, bound, last_id);
            END IF;
        END LOOP;
    END LOOP;

    IF kind = 'sequence' THEN
        -- What else uses the sequence, now that this default does not:
        -- other defaults, views; a function naming it in a string is not
        -- recorded anywhere, and DROP SEQUENCE would not see it either.
        SELECT string_agg(pg_describe_object(d.classid, d.objid, d.objsubid), ', '
                          ORDER BY pg_describe_object(d.classid, d.objid, d.objsubid))
        INTO seq_users
        FROM pg_depend d
        WHERE d.refclassid = 'pg_class'::regclass AND d.refobjid = seq AND d.deptype = 'n';
        IF seq_users IS NULL THEN
            -- Owned by another column (OWNED BY): that column's sequence.
            SELECT pg_describe_object(d.refclassid, d.refobjid, d.refobjsubid) INTO seq_users
            FROM pg_depend d
            WHERE d.classid = 'pg_class'::regclass AND d.objid = seq AND d.deptype = 'a'
              AND d.refclassid = 'pg_class'::regclass
              AND NOT (d.refobjid = table_name AND d.refobjsubid = col_attnum);
            IF seq_users IS NOT NULL THEN
                seq_users := format('%s (which owns it)', seq_users);
            END IF;
        END IF;
        IF NOT drop_sequence AND seq_users IS NULL THEN
            RAISE NOTICE 'sequence % is kept', seq_name
                USING DETAIL = 'Nothing else uses it.',
                      HINT = format('DROP SEQUENCE %s once no application calls nextval() on '
                                    'it.', seq_name);
        ELSIF NOT drop_sequence THEN
            RAISE NOTICE 'sequence % is kept', seq_name
                USING DETAIL = format('It is still used by %s.', seq_users);
        ELSIF seq_users IS NOT NULL THEN
            RAISE EXCEPTION 'sequence % is also used by %', seq_name, seq_users
                USING ERRCODE = '2BP01',
                      HINT = 'Adopt the column with drop_sequence => false, which keeps the '
                             'sequence.';
        ELSE
            EXECUTE format('DROP SEQUENCE %s', seq_name);
        END IF;
    END IF;

    -- A statement prepared before the commit (PREPARE, or the extended
    -- protocol's named statements: JDBC, asyncpg, Npgsql) keeps a result
    -- of type bigint, and PostgreSQL refuses to run it once the column's
    -- type changed. Which statements other sessions hold is not visible
    -- here; the sessions that may hold them are: client backends connected
    -- to this database, and those whose type the caller may not see
    -- (another role's, without pg_read_all_stats). A session connecting
    -- later waits for the lock and plans with the new type. The clear
    -- drops a list read earlier in the transaction.
    IF to_snowflake AND col.atttypid = 'bigint'::regtype THEN
        PERFORM pg_stat_clear_snapshot();
        SELECT count(*) INTO sessions FROM pg_stat_activity a
        WHERE a.datid = (SELECT d.oid FROM pg_database d WHERE d.datname = current_database())
          AND a.pid <> pg_backend_pid()
          AND (a.backend_type = 'client backend' OR a.backend_type IS NULL);
        IF sessions > 0 THEN
            RAISE WARNING '% connected to database %: statements prepared there that return '
                          '% fail once this transaction commits',
                CASE WHEN sessions = 1 THEN '1 other session is'
                     ELSE format('%s other sessions are', sessions) END,
                quote_ident(current_database()), described
                USING DETAIL = 'The column changes from bigint to snowflake. A statement prepared '
                               'before (pgjdbc, psycopg 3, asyncpg and pgbench -M prepared prepare '
                               'them on their own) whose result holds the column (INSERT ... RETURNING, '
                               'SELECT *) fails with "cached plan must not change result type" '
                               '(0A000) until its session prepares it again.',
                      HINT = 'After the commit, reconnect those sessions (restart the connection '
                             'pools) or run DISCARD ALL in them; or adopt in a window without '
                             'such clients, before deploying application code that expects the '
                             'new type.';
        END IF;
    END IF;
END
$$;

COMMENT ON FUNCTION snowflake_adopt(regclass, name, boolean, boolean) IS
'Switches a bigint column filled by a sequence, an identity or the application to DEFAULT snowflake_nextval(), refusing values the generator could issue and check constraints that reject new IDs; to_snowflake converts the column, also one adopted before, to the snowflake type, drop_sequence drops the old sequence';

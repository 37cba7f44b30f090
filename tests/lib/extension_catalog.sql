-- The extension snowflake_id as the catalog holds it, one line per object
-- and aspect, in a canonical order and without OIDs: two databases whose
-- outputs are equal hold the same extension. tests/server/update_paths.sh
-- compares a fresh install with an update from each release this way;
-- anyone can run it (psql -X -At -f tests/lib/extension_catalog.sql) to
-- see what a database of theirs holds.
--
-- Each line: object <TAB> aspect <TAB> value. Objects are named by
-- pg_describe_object, with pg_catalog alone on the search_path so that
-- every name outside it comes schema-qualified. What is described:
--  - the extension: version, schema, relocatable, its configuration tables;
--  - every member (array and row types aside: PostgreSQL 17 and later list
--    them, older majors do not, and they come and go with their element
--    types and relations), with its comment, owner and privileges (an
--    absent ACL as the default it stands for);
--  - functions: pg_get_functiondef (arguments and defaults, result,
--    language, volatility, strictness, parallel safety, security, cost,
--    rows, SET search_path, the body or the C symbol and library);
--  - types, operators, casts, operator classes and families with what
--    defines them, and every operator and support function of the
--    families (not members of the extension themselves: a line missing
--    from a script's ALTER OPERATOR FAMILY shows only here);
--  - tables and views: columns with type, default and NOT NULL,
--    constraints, indexes, triggers, a view's query, column comments and
--    privileges.
-- Output only: it creates nothing and changes no setting after it ends.
\set ON_ERROR_STOP on
BEGIN;
SET LOCAL search_path = pg_catalog;
WITH ext AS (
    SELECT e.* FROM pg_extension e WHERE e.extname = 'snowflake_id'
), members AS (
    SELECT d.classid, d.objid
    FROM pg_depend d, ext
    WHERE d.refclassid = 'pg_extension'::regclass AND d.refobjid = ext.oid AND d.deptype = 'e'
      AND NOT EXISTS (SELECT FROM pg_type t
                      WHERE d.classid = 'pg_type'::regclass AND t.oid = d.objid
                        AND (t.typrelid <> 0 OR t.typcategory = 'A'))
), acl(classid, objid, kind, owner, acl) AS (
    SELECT 'pg_proc'::regclass, oid, 'f', proowner, proacl FROM pg_proc
    UNION ALL SELECT 'pg_class'::regclass, oid, CASE WHEN relkind = 'S' THEN 's' ELSE 'r' END,
                     relowner, relacl FROM pg_class
    UNION ALL SELECT 'pg_type'::regclass, oid, 'T', typowner, typacl FROM pg_type
    UNION ALL SELECT 'pg_namespace'::regclass, oid, 'n', nspowner, nspacl FROM pg_namespace
), lines(object, aspect, value) AS (
    SELECT 'extension snowflake_id', 'version', extversion FROM ext
    UNION ALL SELECT 'extension snowflake_id', 'schema', extnamespace::regnamespace::text FROM ext
    UNION ALL SELECT 'extension snowflake_id', 'relocatable', extrelocatable::text FROM ext
    UNION ALL SELECT 'extension snowflake_id', 'configuration',
                     (SELECT string_agg(c::regclass::text || ' ' || coalesce(w, ''), ', '
                                        ORDER BY c::regclass::text)
                      FROM unnest(extconfig, extcondition) AS u(c, w)) FROM ext
    -- Members, their comments, owners and privileges.
    UNION ALL SELECT pg_describe_object(m.classid, m.objid, 0), 'member', 'yes' FROM members m
    UNION ALL SELECT pg_describe_object(m.classid, m.objid, 0), 'comment',
                     coalesce(obj_description(m.objid, m.classid::regclass::name), '(none)')
              FROM members m
    UNION ALL SELECT pg_describe_object(m.classid, m.objid, 0), 'owner', a.owner::regrole::text
              FROM members m JOIN acl a USING (classid, objid)
    UNION ALL SELECT pg_describe_object(m.classid, m.objid, 0), 'privileges',
                     (SELECT string_agg(x::text, ' ' ORDER BY x::text)
                      FROM unnest(coalesce(a.acl, acldefault(a.kind::"char", a.owner))) x)
              FROM members m JOIN acl a USING (classid, objid)
    -- Functions.
    UNION ALL SELECT pg_describe_object(m.classid, m.objid, 0), 'definition',
                     CASE WHEN p.prokind IN ('a', 'w') THEN p.prokind::text || ' ' || p.prosrc
                          ELSE pg_get_functiondef(p.oid) END
              FROM members m JOIN pg_proc p ON m.classid = 'pg_proc'::regclass AND p.oid = m.objid
    UNION ALL SELECT pg_describe_object(m.classid, m.objid, 0), 'leakproof',
                     p.proleakproof::text || ' support ' || p.prosupport::text
              FROM members m JOIN pg_proc p ON m.classid = 'pg_proc'::regclass AND p.oid = m.objid
    -- Types.
    UNION ALL SELECT pg_describe_object(m.classid, m.objid, 0), 'definition',
                     concat_ws(' ', t.typtype, t.typlen, t.typbyval, t.typalign, t.typstorage,
                               t.typcategory, t.typispreferred, t.typdelim, t.typinput,
                               t.typoutput, t.typreceive, t.typsend, t.typmodin, t.typmodout,
                               t.typanalyze, t.typsubscript, t.typelem::regtype,
                               t.typarray::regtype, t.typbasetype::regtype, t.typnotnull,
                               t.typcollation, t.typdefault)
              FROM members m JOIN pg_type t ON m.classid = 'pg_type'::regclass AND t.oid = m.objid
    -- Operators.
    UNION ALL SELECT pg_describe_object(m.classid, m.objid, 0), 'definition',
                     concat_ws(' ', o.oprkind, o.oprcode, o.oprresult::regtype,
                               'commutator', o.oprcom::regoperator, 'negator',
                               o.oprnegate::regoperator, 'restrict', o.oprrest, 'join',
                               o.oprjoin, 'merges', o.oprcanmerge, 'hashes', o.oprcanhash)
              FROM members m JOIN pg_operator o
                   ON m.classid = 'pg_operator'::regclass AND o.oid = m.objid
    -- Casts.
    UNION ALL SELECT pg_describe_object(m.classid, m.objid, 0), 'definition',
                     concat_ws(' ', c.castfunc::regprocedure, c.castcontext, c.castmethod)
              FROM members m JOIN pg_cast c ON m.classid = 'pg_cast'::regclass AND c.oid = m.objid
    -- Operator classes and families, and what the families hold.
    UNION ALL SELECT pg_describe_object(m.classid, m.objid, 0), 'definition',
                     concat_ws(' ', c.opcintype::regtype, 'default', c.opcdefault,
                               'storage', c.opckeytype::regtype,
                               pg_describe_object('pg_opfamily'::regclass, c.opcfamily, 0))
              FROM members m JOIN pg_opclass c
                   ON m.classid = 'pg_opclass'::regclass AND c.oid = m.objid
    UNION ALL SELECT pg_describe_object(m.classid, m.objid, 0), 'holds',
                     concat_ws(' ', 'operator', o.amopstrategy, o.amoplefttype::regtype,
                               o.amoprighttype::regtype, o.amopopr::regoperator, o.amoppurpose,
                               o.amopsortfamily)
              FROM members m JOIN pg_amop o
                   ON m.classid = 'pg_opfamily'::regclass AND o.amopfamily = m.objid
    UNION ALL SELECT pg_describe_object(m.classid, m.objid, 0), 'holds',
                     concat_ws(' ', 'function', p.amprocnum, p.amproclefttype::regtype,
                               p.amprocrighttype::regtype, p.amproc::regprocedure)
              FROM members m JOIN pg_amproc p
                   ON m.classid = 'pg_opfamily'::regclass AND p.amprocfamily = m.objid
    -- Tables and views.
    UNION ALL SELECT pg_describe_object(m.classid, m.objid, 0), 'kind',
                     c.relkind::text || ' persistence ' || c.relpersistence::text || ' rls '
                     || c.relrowsecurity
              FROM members m JOIN pg_class c ON m.classid = 'pg_class'::regclass AND c.oid = m.objid
    UNION ALL SELECT pg_describe_object(m.classid, m.objid, 0), 'column ' || a.attnum,
                     concat_ws(' ', a.attname, format_type(a.atttypid, a.atttypmod),
                               CASE WHEN a.attnotnull THEN 'NOT NULL' END,
                               'default', pg_get_expr(ad.adbin, ad.adrelid),
                               'comment', col_description(c.oid, a.attnum),
                               'privileges', a.attacl::text)
              FROM members m JOIN pg_class c ON m.classid = 'pg_class'::regclass AND c.oid = m.objid
                   JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0
                                          AND NOT a.attisdropped
                   LEFT JOIN pg_attrdef ad ON ad.adrelid = c.oid AND ad.adnum = a.attnum
    UNION ALL SELECT pg_describe_object(m.classid, m.objid, 0), 'constraint ' || k.conname,
                     pg_get_constraintdef(k.oid)
              FROM members m JOIN pg_constraint k
                   ON m.classid = 'pg_class'::regclass AND k.conrelid = m.objid
    UNION ALL SELECT pg_describe_object(m.classid, m.objid, 0), 'index',
                     pg_get_indexdef(i.indexrelid)
              FROM members m JOIN pg_index i
                   ON m.classid = 'pg_class'::regclass AND i.indrelid = m.objid
    UNION ALL SELECT pg_describe_object(m.classid, m.objid, 0), 'trigger ' || g.tgname,
                     pg_get_triggerdef(g.oid)
              FROM members m JOIN pg_trigger g
                   ON m.classid = 'pg_class'::regclass AND g.tgrelid = m.objid
    UNION ALL SELECT pg_describe_object(m.classid, m.objid, 0), 'query',
                     pg_get_viewdef(m.objid)
              FROM members m JOIN pg_class c ON m.classid = 'pg_class'::regclass AND c.oid = m.objid
              WHERE c.relkind IN ('v', 'm')
)
SELECT object || E'\t' || aspect || E'\t' || coalesce(value, '(null)')
FROM lines ORDER BY object COLLATE "C", aspect COLLATE "C", value COLLATE "C";
COMMIT;

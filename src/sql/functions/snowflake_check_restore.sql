------------------------------------------------------------------------------
-- Restores never mint below what they restored (1.7). The check runs by
-- itself where restored data arrives (the rows of snowflake_origin, before
-- they commit; every COPY FROM into a table with an ID column) and before
-- the first ID any backend issues in a database whose snowflake_origin
-- holds a row of another server not checked here (src/pg/pg_origins.cpp);
-- a superuser may call it too, every_column => true checking whatever the
-- rows say (after restoring a dump of 1.6, which carries no origin, or a
-- CSV loaded otherwise). It finds the largest value of every column whose
-- default calls snowflake_nextval(), directly or through a domain, and of
-- their namesakes in inheritance children and partitions, raises the
-- generator's floor above it, durably, and marks the rows checked by this
-- server. Returns how many rows of other servers it found waiting.
--
-- Not SECURITY DEFINER, and no SQL over the users' tables: it reads the
-- catalogs and the columns through the access methods, needing no
-- privilege and running no code of the tables' owners (the threat model:
-- src/pg/pg_restore_scan.cpp). A value only superusers can have written
-- moves the floor up to an hour ahead of the clock; any other at most
-- snowflake_id.max_clock_drift; beyond, the database refuses (55000) until
-- a superuser accepts it with snowflake_raise_floor().
CREATE OR REPLACE FUNCTION snowflake_check_restore(every_column boolean DEFAULT false)
RETURNS integer
AS 'MODULE_PATHNAME', 'snowflake_check_restore'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

REVOKE ALL ON FUNCTION snowflake_check_restore(boolean) FROM PUBLIC;

COMMENT ON FUNCTION snowflake_check_restore(boolean) IS
'Raises the generator''s floor above every value of every column whose default calls snowflake_nextval(), where snowflake_origin shows data restored from another server (every_column: in any case); snowflake_nextval() calls it before a database''s first ID';

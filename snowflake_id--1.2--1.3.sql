-- snowflake_id 1.2 -> 1.3: the snowflake_status view becomes readable by
-- every role, as the function behind it already was.
\echo Use "ALTER EXTENSION snowflake_id UPDATE TO '1.3'" to load this file. \quit

GRANT SELECT ON snowflake_status TO PUBLIC;

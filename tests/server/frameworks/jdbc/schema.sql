-- The schema (a migration tool's file, or run as it is).
CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT snowflake_nextval(), note text);
CREATE TABLE events (id snowflake PRIMARY KEY DEFAULT snowflake_nextval(), note text);

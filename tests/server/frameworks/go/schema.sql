-- The application's migration, plain SQL that the program runs (recipes.go,
-- migrate). Both keys come from the database: the application never sends
-- an id in an INSERT.
CREATE TABLE orders (
    id bigint PRIMARY KEY DEFAULT snowflake_nextval(),
    note text NOT NULL
);
CREATE TABLE tickets (
    id snowflake PRIMARY KEY DEFAULT snowflake_nextval(),
    note text NOT NULL
);

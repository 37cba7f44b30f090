-- On every node, before any node subscribes to it: the extension, the
-- application's tables, and a publication that names them (only them: not
-- FOR ALL TABLES, which would take in the extension's own tables in the
-- schema snowflake_id).
CREATE EXTENSION snowflake_id;
CREATE TABLE items (
    id bigint PRIMARY KEY DEFAULT snowflake_nextval(),
    made_on text NOT NULL DEFAULT current_setting('cluster_name'),
    note text
);
CREATE TABLE events (
    id snowflake PRIMARY KEY DEFAULT snowflake_nextval(),
    item_id bigint NOT NULL,
    at timestamptz NOT NULL DEFAULT now()
);
CREATE PUBLICATION app FOR TABLE items, events;

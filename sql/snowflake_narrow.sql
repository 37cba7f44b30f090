-- Server: snowflake_id preloaded, worker_id = 7, sequence_bits = 4 and
-- max_clock_drift = 10 ms: a block can span at most 11 ms of 16 IDs.
SET timezone = 'UTC';
SET datestyle = 'ISO, YMD';
CREATE EXTENSION snowflake_id;
SELECT count(*) AS largest_block FROM snowflake_nextval(176);
SELECT snowflake_nextval(177);
-- Its IDs still run through the node's sequence, millisecond by millisecond.
CREATE TEMP TABLE block AS SELECT row_number() OVER () AS i, id FROM snowflake_nextval(40) id;
SELECT bool_and(CASE WHEN (a.id & 15) = 15 THEN b.id = a.id - 15 + (1::bigint << 14)
                     ELSE b.id = a.id + 1 END) AS consecutive
FROM block a JOIN block b ON b.i = a.i + 1;
SELECT sequence_bits, timestamp_bits, errors >= 1 AS counted_error FROM snowflake_status;

-- One btree and one hash family for snowflake and bigint together: primary
-- keys, unique constraints, merge and hash joins, GROUP BY and DISTINCT;
-- WHERE id >= snowflake_from_timestamp(...) (a bigint) uses an index on a
-- snowflake column and prunes its partitions; and a bigint column can
-- reference a snowflake key. bigint's own operators join the families, as
-- a foreign key from bigint needs bigint = bigint in the key's family.
CREATE OPERATOR FAMILY snowflake_ops USING btree;
CREATE OPERATOR CLASS snowflake_ops DEFAULT FOR TYPE snowflake USING btree FAMILY snowflake_ops AS
    OPERATOR 1 < (snowflake, snowflake), OPERATOR 2 <= (snowflake, snowflake),
    OPERATOR 3 = (snowflake, snowflake), OPERATOR 4 >= (snowflake, snowflake),
    OPERATOR 5 > (snowflake, snowflake),
    FUNCTION 1 snowflake_cmp(snowflake, snowflake),
    FUNCTION 2 (snowflake, snowflake) btint8sortsupport(internal);
ALTER OPERATOR FAMILY snowflake_ops USING btree ADD
    OPERATOR 1 < (snowflake, bigint), OPERATOR 2 <= (snowflake, bigint),
    OPERATOR 3 = (snowflake, bigint), OPERATOR 4 >= (snowflake, bigint),
    OPERATOR 5 > (snowflake, bigint),
    FUNCTION 1 snowflake_cmp(snowflake, bigint),
    OPERATOR 1 < (bigint, snowflake), OPERATOR 2 <= (bigint, snowflake),
    OPERATOR 3 = (bigint, snowflake), OPERATOR 4 >= (bigint, snowflake),
    OPERATOR 5 > (bigint, snowflake),
    FUNCTION 1 snowflake_cmp(bigint, snowflake),
    OPERATOR 1 < (bigint, bigint), OPERATOR 2 <= (bigint, bigint),
    OPERATOR 3 = (bigint, bigint), OPERATOR 4 >= (bigint, bigint),
    OPERATOR 5 > (bigint, bigint),
    FUNCTION 1 btint8cmp(bigint, bigint),
    FUNCTION 2 (bigint, bigint) btint8sortsupport(internal),
    OPERATOR 1 < (snowflake, integer), OPERATOR 2 <= (snowflake, integer),
    OPERATOR 3 = (snowflake, integer), OPERATOR 4 >= (snowflake, integer),
    OPERATOR 5 > (snowflake, integer),
    FUNCTION 1 snowflake_cmp(snowflake, integer),
    OPERATOR 1 < (integer, snowflake), OPERATOR 2 <= (integer, snowflake),
    OPERATOR 3 = (integer, snowflake), OPERATOR 4 >= (integer, snowflake),
    OPERATOR 5 > (integer, snowflake),
    FUNCTION 1 snowflake_cmp(integer, snowflake);

ALTER OPERATOR FAMILY snowflake_ops USING btree ADD
    OPERATOR 1 < (snowflake, smallint), OPERATOR 2 <= (snowflake, smallint),
    OPERATOR 3 = (snowflake, smallint), OPERATOR 4 >= (snowflake, smallint),
    OPERATOR 5 > (snowflake, smallint),
    FUNCTION 1 snowflake_cmp(snowflake, smallint),
    OPERATOR 1 < (smallint, snowflake), OPERATOR 2 <= (smallint, snowflake),
    OPERATOR 3 = (smallint, snowflake), OPERATOR 4 >= (smallint, snowflake),
    OPERATOR 5 > (smallint, snowflake),
    FUNCTION 1 snowflake_cmp(smallint, snowflake);

-- The families also compare integer and smallint with each other and with
-- bigint, complete as PostgreSQL's own integer_ops and integer_hash_ops:
-- a btree family holding snowflake = integer must sort and compare the
-- integers themselves too, or id = ANY(integer[]) on the key and a merge
-- join with an integer column fail with "missing support function"
-- (amvalidate checks it).
ALTER OPERATOR FAMILY snowflake_ops USING btree ADD
    OPERATOR 1 < (integer, integer), OPERATOR 2 <= (integer, integer),
    OPERATOR 3 = (integer, integer), OPERATOR 4 >= (integer, integer),
    OPERATOR 5 > (integer, integer),
    FUNCTION 1 btint4cmp(integer, integer),
    FUNCTION 2 (integer, integer) btint4sortsupport(internal),
    OPERATOR 1 < (smallint, smallint), OPERATOR 2 <= (smallint, smallint),
    OPERATOR 3 = (smallint, smallint), OPERATOR 4 >= (smallint, smallint),
    OPERATOR 5 > (smallint, smallint),
    FUNCTION 1 btint2cmp(smallint, smallint),
    FUNCTION 2 (smallint, smallint) btint2sortsupport(internal),
    OPERATOR 1 < (integer, bigint), OPERATOR 2 <= (integer, bigint),
    OPERATOR 3 = (integer, bigint), OPERATOR 4 >= (integer, bigint),
    OPERATOR 5 > (integer, bigint),
    FUNCTION 1 btint48cmp(integer, bigint),
    OPERATOR 1 < (bigint, integer), OPERATOR 2 <= (bigint, integer),
    OPERATOR 3 = (bigint, integer), OPERATOR 4 >= (bigint, integer),
    OPERATOR 5 > (bigint, integer),
    FUNCTION 1 btint84cmp(bigint, integer),
    OPERATOR 1 < (smallint, bigint), OPERATOR 2 <= (smallint, bigint),
    OPERATOR 3 = (smallint, bigint), OPERATOR 4 >= (smallint, bigint),
    OPERATOR 5 > (smallint, bigint),
    FUNCTION 1 btint28cmp(smallint, bigint),
    OPERATOR 1 < (bigint, smallint), OPERATOR 2 <= (bigint, smallint),
    OPERATOR 3 = (bigint, smallint), OPERATOR 4 >= (bigint, smallint),
    OPERATOR 5 > (bigint, smallint),
    FUNCTION 1 btint82cmp(bigint, smallint),
    OPERATOR 1 < (smallint, integer), OPERATOR 2 <= (smallint, integer),
    OPERATOR 3 = (smallint, integer), OPERATOR 4 >= (smallint, integer),
    OPERATOR 5 > (smallint, integer),
    FUNCTION 1 btint24cmp(smallint, integer),
    OPERATOR 1 < (integer, smallint), OPERATOR 2 <= (integer, smallint),
    OPERATOR 3 = (integer, smallint), OPERATOR 4 >= (integer, smallint),
    OPERATOR 5 > (integer, smallint),
    FUNCTION 1 btint42cmp(integer, smallint);

COMMENT ON OPERATOR FAMILY snowflake_ops USING btree IS
'snowflake, bigint, integer and smallint in one order: keys, joins and partition pruning across the types, and a bigint foreign key to a snowflake key';
COMMENT ON OPERATOR CLASS snowflake_ops USING btree IS
'The snowflake type''s default btree class: primary keys, unique constraints, ORDER BY and merge joins, bigint''s order';

CREATE OPERATOR FAMILY snowflake_hash_ops USING hash;
CREATE OPERATOR CLASS snowflake_hash_ops DEFAULT FOR TYPE snowflake USING hash
    FAMILY snowflake_hash_ops AS
    OPERATOR 1 = (snowflake, snowflake),
    FUNCTION 1 snowflake_hash(snowflake),
    FUNCTION 2 snowflake_hash_extended(snowflake, bigint);
ALTER OPERATOR FAMILY snowflake_hash_ops USING hash ADD
    OPERATOR 1 = (snowflake, bigint), OPERATOR 1 = (bigint, snowflake),
    OPERATOR 1 = (bigint, bigint),
    OPERATOR 1 = (snowflake, integer), OPERATOR 1 = (integer, snowflake),
    FUNCTION 1 hashint8(bigint), FUNCTION 2 hashint8extended(bigint, bigint),
    FUNCTION 1 hashint4(integer), FUNCTION 2 hashint4extended(integer, bigint);
ALTER OPERATOR FAMILY snowflake_hash_ops USING hash ADD
    OPERATOR 1 = (snowflake, smallint), OPERATOR 1 = (smallint, snowflake),
    FUNCTION 1 hashint2(smallint), FUNCTION 2 hashint2extended(smallint, bigint);
ALTER OPERATOR FAMILY snowflake_hash_ops USING hash ADD
    OPERATOR 1 = (integer, integer), OPERATOR 1 = (smallint, smallint),
    OPERATOR 1 = (integer, bigint), OPERATOR 1 = (bigint, integer),
    OPERATOR 1 = (smallint, bigint), OPERATOR 1 = (bigint, smallint),
    OPERATOR 1 = (smallint, integer), OPERATOR 1 = (integer, smallint);
COMMENT ON OPERATOR FAMILY snowflake_hash_ops USING hash IS
'snowflake, bigint, integer and smallint in one hash family: hash joins and hash aggregation across the types';
COMMENT ON OPERATOR CLASS snowflake_hash_ops USING hash IS
'The snowflake type''s default hash class: hash indexes, hash joins, GROUP BY and DISTINCT by hashing, bigint''s hash';

-- BRIN minmax, for large append-only tables keyed by time-ordered IDs.
CREATE OPERATOR FAMILY snowflake_minmax_ops USING brin;
CREATE OPERATOR CLASS snowflake_minmax_ops DEFAULT FOR TYPE snowflake USING brin
    FAMILY snowflake_minmax_ops AS
    OPERATOR 1 < (snowflake, snowflake), OPERATOR 2 <= (snowflake, snowflake),
    OPERATOR 3 = (snowflake, snowflake), OPERATOR 4 >= (snowflake, snowflake),
    OPERATOR 5 > (snowflake, snowflake),
    FUNCTION 1 brin_minmax_opcinfo(internal),
    FUNCTION 2 brin_minmax_add_value(internal, internal, internal, internal),
    FUNCTION 3 brin_minmax_consistent(internal, internal, internal),
    FUNCTION 4 brin_minmax_union(internal, internal, internal);
ALTER OPERATOR FAMILY snowflake_minmax_ops USING brin ADD
    OPERATOR 1 < (snowflake, bigint), OPERATOR 2 <= (snowflake, bigint),
    OPERATOR 3 = (snowflake, bigint), OPERATOR 4 >= (snowflake, bigint),
    OPERATOR 5 > (snowflake, bigint);
COMMENT ON OPERATOR FAMILY snowflake_minmax_ops USING brin IS
'BRIN minmax for snowflake, also for comparisons with a bigint such as id >= snowflake_from_timestamp(t)';
COMMENT ON OPERATOR CLASS snowflake_minmax_ops USING brin IS
'The snowflake type''s default BRIN class: minmax summaries, small indexes for large append-only tables keyed by time-ordered IDs';

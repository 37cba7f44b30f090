"""The lifecycle simulator of snowflake_id (docs/lifecycle.md)."""

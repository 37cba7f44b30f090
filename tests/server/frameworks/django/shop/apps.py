import psycopg2.extensions
from django.apps import AppConfig
from django.db.backends.signals import connection_created


def register_snowflake(sender, connection, **kwargs):
    """Reads the snowflake type, and arrays of it, as int on each new
    connection (psycopg2 reads a type it does not know as str). A database
    without the extension yet (the test runner's, before its migrations) is
    left alone: the migration that creates the extension registers it."""
    with connection.connection.cursor() as cur:
        cur.execute("SELECT to_regtype('snowflake')::oid, to_regtype('snowflake[]')::oid")
        oid, array_oid = cur.fetchone()
    if oid is None:
        return
    snowflake = psycopg2.extensions.new_type(
        (oid,), "SNOWFLAKE", lambda value, cur: None if value is None else int(value))
    psycopg2.extensions.register_type(snowflake, connection.connection)
    psycopg2.extensions.register_type(
        psycopg2.extensions.new_array_type((array_oid,), "SNOWFLAKE[]", snowflake),
        connection.connection)


class ShopConfig(AppConfig):
    name = "shop"

    def ready(self):
        connection_created.connect(register_snowflake, dispatch_uid="register_snowflake")

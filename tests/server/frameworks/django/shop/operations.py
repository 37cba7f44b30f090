from django.contrib.postgres.operations import CreateExtension

from shop.apps import register_snowflake


class CreateSnowflakeExtension(CreateExtension):
    """CREATE EXTENSION snowflake_id where it is missing (the test runner's
    database, made from template1; creating it takes a superuser), then the
    type registered on the migration's connection, which the tests go on
    using and which opened before the type existed."""

    def __init__(self):
        self.name = "snowflake_id"

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        super().database_forwards(app_label, schema_editor, from_state, to_state)
        register_snowflake(None, schema_editor.connection)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        pass  # the extension stays: other tables and applications may use it

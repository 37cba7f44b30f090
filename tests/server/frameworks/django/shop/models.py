from django.db import models


class SnowflakeAutoField(models.BigAutoField):
    """A key of the extension's snowflake type: CreateModel makes the column
    `snowflake` instead of `bigserial`, and a migration gives it its default."""

    def db_type(self, connection):
        return "snowflake"


class Order(models.Model):
    # Django 3.2 has no db_default: the migration makes the column bigserial,
    # then snowflake_adopt() gives it DEFAULT snowflake_nextval().
    id = models.BigAutoField(primary_key=True)
    note = models.TextField()


class Invoice(models.Model):
    id = SnowflakeAutoField(primary_key=True)
    note = models.TextField()

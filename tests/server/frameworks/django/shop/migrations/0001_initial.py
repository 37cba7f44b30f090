# Written by makemigrations (Django 3.2), then CreateSnowflakeExtension and the
# two RunSQL operations added by hand: Django 3.2 cannot declare a database
# default.

from django.db import migrations, models
import shop.models
from shop.operations import CreateSnowflakeExtension


class Migration(migrations.Migration):

    initial = True

    dependencies = [
    ]

    operations = [
        CreateSnowflakeExtension(),
        migrations.CreateModel(
            name='Invoice',
            fields=[
                ('id', shop.models.SnowflakeAutoField(primary_key=True, serialize=False)),
                ('note', models.TextField()),
            ],
        ),
        migrations.CreateModel(
            name='Order',
            fields=[
                ('id', models.BigAutoField(primary_key=True, serialize=False)),
                ('note', models.TextField()),
            ],
        ),
        # bigserial to DEFAULT snowflake_nextval(), and its sequence dropped.
        migrations.RunSQL(
            "SELECT snowflake_adopt('shop_order', 'id', drop_sequence => true)",
            reverse_sql=migrations.RunSQL.noop),
        # A snowflake column with no default gets DEFAULT snowflake_nextval().
        migrations.RunSQL(
            "SELECT snowflake_adopt('shop_invoice', 'id')",
            reverse_sql=migrations.RunSQL.noop),
    ]

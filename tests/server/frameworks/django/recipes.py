"""The Django recipes of docs/frameworks/django.md, asserted against the
database in SF_DB (the extension and nothing else): run by ./run."""
import datetime as dt
import json
import os

import django
import psycopg2
from django.conf import settings

settings.configure(
    DATABASES={"default": {
        "ENGINE": "django.db.backends.postgresql", "NAME": os.environ["SF_DB"],
        "USER": "postgres", "HOST": os.environ["SF_SOCKDIR"], "PORT": os.environ["SF_PORT"]}},
    INSTALLED_APPS=["shop"],
    DEFAULT_AUTO_FIELD="django.db.models.BigAutoField",
    USE_TZ=True,
    ROOT_URLCONF="shop.urls",
    ALLOWED_HOSTS=["testserver"])
django.setup()

from django.core import serializers  # noqa: E402 (after setup)
from django.core.management import call_command  # noqa: E402
from django.db import connection, models  # noqa: E402
from django.db.backends.signals import connection_created  # noqa: E402
from django.db.utils import IntegrityError, ProgrammingError  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from check import expect, fail, ok  # noqa: E402 (tests/server/frameworks/check.py)
from shop.models import Invoice, Order, SnowflakeAutoField  # noqa: E402
from shop.queries import invoices_minted, orders_minted, timestamptz  # noqa: E402


# A connection of its own, outside Django, to read what is stored.
raw = psycopg2.connect(host=os.environ["SF_SOCKDIR"], port=os.environ["SF_PORT"],
                       user="postgres", dbname=os.environ["SF_DB"])
raw.autocommit = True


def sql(query, *params):
    with raw.cursor() as cur:
        cur.execute(query, params)
        return cur.fetchall()


# 1. The migration.
call_command("migrate", verbosity=0)
columns = dict((r[0], r[1:]) for r in sql(
    "SELECT c.relname, format_type(a.atttypid, a.atttypmod), pg_get_expr(d.adbin, d.adrelid)"
    " FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid"
    " LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum"
    " WHERE c.relname IN ('shop_order', 'shop_invoice') AND a.attname = 'id'"))
expect(columns.get("shop_order") == ("bigint", "snowflake_nextval()"),
       "migrate: shop_order.id is bigint DEFAULT snowflake_nextval()", str(columns))
expect(columns.get("shop_invoice") == ("snowflake", "snowflake_nextval()"),
       "migrate: shop_invoice.id is snowflake DEFAULT snowflake_nextval()", str(columns))
expect(sql("SELECT count(*) FROM pg_class WHERE relkind = 'S' AND relname ~ '^shop_'") == [(0,)],
       "migrate: the bigserial's sequence is gone")
try:
    call_command("makemigrations", "shop", check=True, dry_run=True, verbosity=0)
except SystemExit as e:
    fail(f"makemigrations --check: the models differ from the migrations (exit {e.code})")
ok("makemigrations --check: the models and the migrations agree")
# CreateSnowflakeExtension registered the type on the migration's connection:
# the rest runs on a new one, as an application's requests do, which only
# shop/apps.py registers.
connection.close()

# 2. A bigint key: the ORM reads the generated key back (RETURNING).
with CaptureQueriesContext(connection) as queries:
    now_orders = [Order.objects.create(note=f"now {i}") for i in range(3)]
inserts = [q["sql"] for q in queries.captured_queries]
expect(len(inserts) == 3 and all(q.endswith('RETURNING "shop_order"."id"') for q in inserts),
       'Order.objects.create() runs INSERT ... RETURNING "shop_order"."id"', str(inserts))
order = now_orders[0]
stored = sql("SELECT id FROM shop_order WHERE note = 'now 0'")[0][0]
expect(type(order.id) is int and order.id == stored,
       f"Order.objects.create() returns the stored key {stored} as int", repr(order.id))
expect(stored > 2**53, f"the key {stored} is above 2^53")

# 3. A snowflake key, read as int (shop/apps.py registers the type).
now_invoices = [Invoice.objects.create(note=f"now {i}") for i in range(3)]
invoice = now_invoices[0]
stored = sql("SELECT id::bigint FROM shop_invoice WHERE note = 'now 0'")[0][0]
expect(type(invoice.id) is int and invoice.id == stored,
       f"Invoice.objects.create() returns the stored snowflake key {stored} as int", repr(invoice.id))
fetched = Invoice.objects.get(note="now 0").id
expect(type(fetched) is int and fetched == stored,
       "Invoice.objects.get() reads the snowflake key as int", repr(fetched))
expect(Invoice.objects.get(pk=stored).note == "now 0", "Invoice.objects.get(pk=<int>) finds the row")

# 4. Time filters. Rows with IDs composed at fixed past times around the
# window [T1, T2), on both keys; the rows made above are minted now.
T1 = dt.datetime(2025, 6, 1, 12, 0, tzinfo=dt.timezone.utc)
T2 = T1 + dt.timedelta(hours=1)
ms = dt.timedelta(milliseconds=1)
composed = {"before T1": (T1 - ms, 4095), "at T1": (T1, 0), "inside": (T1 + 30 * 60 * 1000 * ms, 5),
            "last ms before T2": (T2 - ms, 4095), "at T2": (T2, 0)}
inside = {"at T1", "inside", "last ms before T2"}
for note, (t, seq) in composed.items():
    key = sql("SELECT snowflake_compose(%s, 7, %s)", t, seq)[0][0]
    Order.objects.create(id=key, note=note)
    Invoice.objects.create(id=key, note=note)

for name, query in (("orders_minted (bigint key)", orders_minted),
                    ("invoices_minted (snowflake key)", invoices_minted)):
    got = set(query(T1, T2).values_list("note", flat=True))
    expect(got == inside, f"{name}(T1, T2) returns exactly the rows composed in [T1, T2)",
           f"{sorted(got)}")

# A window from a server time read before the ORM's inserts: exactly those
# rows. An ID's time is the start of its millisecond: truncate the time to
# one, or an ID of the same millisecond but later is before it.
with connection.cursor() as cur:
    cur.execute("SELECT date_trunc('milliseconds', clock_timestamp())")
    (since,) = cur.fetchone()
minted_now = {Order.objects.create(note="minted now").id for _ in range(3)}
got = set(orders_minted(since).values_list("id", flat=True))
expect(got == minted_now, "orders_minted(server time before the inserts) returns exactly the rows minted since",
       f"{sorted(got)} != {sorted(minted_now)}")
minted_now = {Invoice.objects.create(note="minted now").id for _ in range(3)}
got = set(invoices_minted(since).values_list("id", flat=True))
expect(got == minted_now,
       "invoices_minted(server time before the inserts) returns exactly the rows minted since",
       f"{sorted(got)} != {sorted(minted_now)}")

# The traps: a datetime where the key takes an int, and a timestamptz
# against a bigint key. Both fail, neither returns rows.
for model in (Order, Invoice):
    try:
        list(model.objects.filter(id__gte=T1))
        fail(f"{model.__name__}.objects.filter(id__gte=<datetime>) ran")
    except TypeError as e:
        expect("expected a number but got datetime" in str(e),
               f"trap: {model.__name__}.objects.filter(id__gte=<datetime>) raises TypeError ({e})")
try:
    list(Order.objects.filter(id__gte=timestamptz(T1)))
    fail("a bigint key compared with a timestamptz ran")
except ProgrammingError as e:
    expect("operator does not exist: bigint >= timestamp with time zone" in str(e),
           "trap: a bigint key compared with a timestamptz: operator does not exist")

# 5. JSON the application writes: the view's JsonResponse.
stored = sql("SELECT id FROM shop_order WHERE note = 'now 1'")[0][0]
response = Client().get(f"/orders/{stored}")
text = response.content.decode()
expect(response.status_code == 200 and f'"id": "{stored}"' in text,
       f"GET /orders/{stored}: the JSON carries every digit of the key, as a string", text)
expect(int(json.loads(text)["id"]) == stored, "the JSON's id reads back as the stored key")
# What a JSON number would do: a reader that parses numbers as doubles
# (JavaScript's JSON.parse) reads another ID, for most IDs (a minted ID whose
# sequence is 0 happens to be a double: take the composed one with sequence 5).
composed_key = Order.objects.get(note="inside").id
as_number = json.dumps({"id": composed_key})
read = int(json.loads(as_number, parse_int=float)["id"])
expect(read != composed_key, f"trap: as a JSON number, a double reader reads {read}, not {composed_key}")
text = serializers.serialize("json", [Order.objects.get(pk=stored)])
expect(f'"pk": {stored},' in text, "trap: Django's json serializer writes the key as a JSON number", text)

# Django's test runner makes its database from template1, without the
# extension: the migration creates it, and the tests' connection (the
# migration's) reads the snowflake type as int.
test_db = connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
with connection.cursor() as cur:
    cur.execute("SELECT extversion FROM pg_extension WHERE extname = 'snowflake_id'")
    expect(cur.fetchone() is not None, f"the test runner's database {test_db} migrates: it has the extension")
key = Invoice.objects.create(note="in the test database").id
expect(type(key) is int and key > 2**53, "the test runner's database reads a created snowflake key as int",
       repr(key))
connection.creation.destroy_test_db(os.environ["SF_DB"], verbosity=0)

# The trap of a key that is not an AutoField: Django sends NULL for it.
class PlainKeyOrder(models.Model):
    id = models.BigIntegerField(primary_key=True)
    note = models.TextField()

    class Meta:
        app_label = "shop"
        db_table = "shop_order"
        managed = False


try:
    PlainKeyOrder.objects.create(note="plain key")
    fail("a BigIntegerField key was created")
except IntegrityError as e:
    expect('null value in column "id"' in str(e), "trap: a BigIntegerField key is sent as NULL")

# 6. The trap without the type's registration: psycopg2 reads a snowflake as
# str. A from_db_value on the field converts what queries fetch, but Django 3.2
# sets the key of a created row from RETURNING without the field's converters.
connection_created.disconnect(dispatch_uid="register_snowflake")
connection.close()


class FromDbValueSnowflakeField(SnowflakeAutoField):
    def from_db_value(self, value, expression, connection):
        return None if value is None else int(value)


class UnregisteredInvoice(models.Model):
    id = FromDbValueSnowflakeField(primary_key=True)
    note = models.TextField()

    class Meta:
        app_label = "shop"
        db_table = "shop_invoice"
        managed = False


created = UnregisteredInvoice.objects.create(note="unregistered").id
fetched = UnregisteredInvoice.objects.get(note="unregistered").id
expect(type(created) is str and type(fetched) is int and int(created) == fetched,
       f"trap: without the registration, a created key is str ({created!r}), a fetched one int")
created = Invoice.objects.create(note="unregistered, no from_db_value").id
fetched = Invoice.objects.get(note="unregistered, no from_db_value").id
expect(type(created) is str and type(fetched) is str,
       "trap: without the registration and from_db_value, the key is str both ways")

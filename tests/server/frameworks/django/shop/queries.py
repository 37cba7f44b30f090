from django.db.models import BigIntegerField, DateTimeField, Func, Value

from shop.models import Invoice, Order


def timestamptz(t):
    """A time as a typed parameter (psycopg2 sends an aware datetime as
    '...'::timestamptz), for a lookup on a key, which would take an int."""
    return Value(t, output_field=DateTimeField())


class FirstAtOrAfter(Func):
    """snowflake_first_at_or_after(t): the smallest ID minted at or after t."""
    function = "snowflake_first_at_or_after"
    output_field = BigIntegerField()


def orders_minted(start, end=None):
    """Orders (a bigint key) minted in [start, end): compare the key with the
    boundary IDs of the times."""
    orders = Order.objects.filter(id__gte=FirstAtOrAfter(timestamptz(start)))
    return orders if end is None else orders.filter(id__lt=FirstAtOrAfter(timestamptz(end)))


def invoices_minted(start, end=None):
    """Invoices (a snowflake key) minted in [start, end): the key compares
    with a timestamptz directly."""
    invoices = Invoice.objects.filter(id__gte=timestamptz(start))
    return invoices if end is None else invoices.filter(id__lt=timestamptz(end))

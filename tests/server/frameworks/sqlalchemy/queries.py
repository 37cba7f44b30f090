import json

from sqlalchemy import BigInteger, TIMESTAMP, cast, func, select

from models import Invoice, Order


def timestamptz(t):
    """A time as a parameter typed timestamptz, whatever the driver sends."""
    return cast(t, TIMESTAMP(timezone=True))


def first_at_or_after(t):
    """snowflake_first_at_or_after(t): the smallest ID minted at or after t."""
    return func.snowflake_first_at_or_after(timestamptz(t), type_=BigInteger)


def orders_minted(start, end=None):
    """Orders (a bigint key) minted in [start, end): compare the key with the
    boundary IDs of the times."""
    query = select(Order).where(Order.id >= first_at_or_after(start))
    return query if end is None else query.where(Order.id < first_at_or_after(end))


def invoices_minted(start, end=None):
    """Invoices (a snowflake key) minted in [start, end): the key compares
    with a timestamptz directly."""
    query = select(Invoice).where(Invoice.id >= timestamptz(start))
    return query if end is None else query.where(Invoice.id < timestamptz(end))


def order_json(order):
    # The ID as a string: it is above 2^53, where a JSON number loses digits
    # in JavaScript (and in every reader that parses numbers as doubles).
    return json.dumps({"id": str(order.id), "note": order.note})

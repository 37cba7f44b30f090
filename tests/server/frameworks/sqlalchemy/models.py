from sqlalchemy import BigInteger, Column, Text, text
from sqlalchemy.orm import declarative_base
from sqlalchemy.types import UserDefinedType


class Snowflake(UserDefinedType):
    """The extension's snowflake type: `snowflake` in DDL, int in Python
    (psycopg2 reads a type it does not know as str)."""
    cache_ok = True

    def get_col_spec(self, **kw):
        return "snowflake"

    def result_processor(self, dialect, coltype):
        return lambda value: None if value is None else int(value)


Base = declarative_base()


class Order(Base):
    __tablename__ = "orders"
    id = Column(BigInteger, primary_key=True, server_default=text("snowflake_nextval()"))
    note = Column(Text, nullable=False)


class Invoice(Base):
    __tablename__ = "invoices"
    id = Column(Snowflake, primary_key=True, server_default=text("snowflake_nextval()"))
    note = Column(Text, nullable=False)

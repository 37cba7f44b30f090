"""Alembic's autogenerate against an application database: the migration it
would write for a model of one table, items, keyed by
`id bigint PRIMARY KEY DEFAULT snowflake_nextval()`.

Usage: alembic_autogenerate.py SOCKDIR PORT DBNAME [all-schemas|all-schemas-unfiltered]

Prints each difference compare_metadata finds ("op name"), then the
upgrade() body autogenerate renders into a revision file. With all-schemas,
include_schemas=True, as a project whose models span schemas sets it, with
the include_name hook docs/frameworks.md gives (all-schemas-unfiltered:
without it, where autogenerate plans to drop the extension's tables).
"""
import sys

from alembic.autogenerate import compare_metadata, produce_migrations, render_python_code
from alembic.migration import MigrationContext
from sqlalchemy import BigInteger, Column, MetaData, Table, Text, create_engine, text

sockdir, port, dbname = sys.argv[1:4]
mode = sys.argv[4] if len(sys.argv) > 4 else "default"

engine = create_engine(f"postgresql+psycopg2://postgres@/{dbname}?host={sockdir}&port={port}")
metadata = MetaData()
Table("items", metadata,
      Column("id", BigInteger, primary_key=True, autoincrement=False,
             server_default=text("snowflake_nextval()")),
      Column("note", Text))


def include_name(name, type_, parent_names):
    # The schema snowflake_id belongs to the extension: not the models'.
    if type_ == "schema":
        return name != "snowflake_id"
    return True


def describe(diff):
    """One line per difference: the operation and the object it names."""
    if isinstance(diff, list):
        for d in diff:
            yield from describe(d)
        return
    op, *args = diff
    names = []
    for a in args:
        for attr in ("fullname", "name"):
            if getattr(a, attr, None):
                names.append(str(getattr(a, attr)))
                break
        else:
            if isinstance(a, str):
                names.append(a)
    yield f"{op} {' '.join(names)}"


with engine.connect() as conn:
    opts = {"compare_type": True, "compare_server_default": True}
    if mode.startswith("all-schemas"):
        opts["include_schemas"] = True
    if mode == "all-schemas":
        opts["include_name"] = include_name
    context = MigrationContext.configure(conn, opts=opts)
    for diff in compare_metadata(context, metadata):
        for line in describe(diff):
            print("diff:", line)
    print("--- upgrade()")
    print(render_python_code(produce_migrations(context, metadata).upgrade_ops))

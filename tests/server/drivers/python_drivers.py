#!/usr/bin/python3
"""The Python drivers against a table keyed by bigint and one keyed by
snowflake, without and with the snippets of docs/client-drivers.md
(extracted into SNIPPETS by snippets.py): psycopg2, psycopg 3 in text and
binary mode, asyncpg, SQLAlchemy's ORM over asyncpg. Each inserts, reads,
updates and deletes by id. Without the snippet the problems are asserted as
they are (str, bytes, asyncpg refusing int, SQLAlchemy failing UPDATE and
DELETE of a loaded row); with it, ints both ways and every operation.
Decimal parameters (numeric) against the snowflake key are tested too.

Usage: python_drivers.py SOCKET_DIR PORT SNIPPETS
The tables k_bigint and k_snowflake (id ... PRIMARY KEY DEFAULT
snowflake_nextval(), note text) exist in database postgres.
"""
import asyncio
import decimal
import struct
import sys

import asyncpg
import psycopg
import psycopg2
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncSession, create_async_engine
from sqlalchemy.orm import declarative_base

HOST, PORT, SNIPPETS = sys.argv[1], int(sys.argv[2]), sys.argv[3]
TABLES = ("k_bigint", "k_snowflake")


def snippet(*names):
    """The namespace of the named snippets, run in order, as the page shows them."""
    ns = {}
    for name in names:
        with open(f"{SNIPPETS}/{name}.py", encoding="utf-8") as f:
            exec(compile(f.read(), f"docs/client-drivers.md ({name})", "exec"), ns)
    return ns


def check(what, cond, detail=""):
    if not cond:
        raise AssertionError(f"{what}{': ' + str(detail) if detail else ''}")
    print(f"ok: {what}", flush=True)


def expect_error(what, fn, error_type, text):
    """fn() raises error_type with text in its message."""
    try:
        fn()
    except error_type as e:
        check(what, text in str(e), f"the error says {e!r}, not {text!r}")
        return
    raise AssertionError(f"{what}: no {error_type.__name__} raised")


def new_id(cur_exec):
    """A fresh Snowflake ID, an int, from snowflake_nextval() (a bigint)."""
    return cur_exec("SELECT snowflake_nextval()")


def crud_dbapi(label, conn, table, execute, expect_type, as_returned):
    """Insert (default and explicit id), read, update and delete by an int id,
    on a DB-API-like connection. expect_type: the Python type the driver
    returns for the key; as_returned(int) -> what it returns for that id."""
    ident = execute(conn, "SELECT snowflake_nextval()")[0][0]
    check(f"{label}: snowflake_nextval() is an int", type(ident) is int, type(ident))
    rows = execute(conn, f"INSERT INTO {table} (id, note) VALUES (%s, 'explicit') RETURNING id",
                   (ident,))
    check(f"{label}: INSERT with an int id returns {expect_type.__name__}",
          type(rows[0][0]) is expect_type and rows[0][0] == as_returned(ident), rows)
    rows = execute(conn, f"INSERT INTO {table} (note) VALUES ('default') RETURNING id")
    check(f"{label}: INSERT ... DEFAULT returns {expect_type.__name__}",
          type(rows[0][0]) is expect_type, rows)
    rows = execute(conn, f"SELECT id, note FROM {table} WHERE id = %s", (ident,))
    check(f"{label}: SELECT by an int id finds the row",
          rows == [(as_returned(ident), "explicit")], rows)
    rows = execute(conn, f"UPDATE {table} SET note = 'updated' WHERE id = %s RETURNING note",
                   (ident,))
    check(f"{label}: UPDATE by an int id", rows == [("updated",)], rows)
    rows = execute(conn, f"DELETE FROM {table} WHERE id = %s RETURNING note", (ident,))
    check(f"{label}: DELETE by an int id", rows == [("updated",)], rows)


def exec_psycopg2(conn, sql, params=None):
    with conn.cursor() as cur:
        cur.execute(sql, params)
        return cur.fetchall()


def run_psycopg2():
    for registered in (False, True):
        conn = psycopg2.connect(host=HOST, port=PORT, user="postgres", dbname="postgres")
        if registered:
            snippet("psycopg2")["register_snowflake"](conn)
        mode = "with the snippet" if registered else "without the snippet"
        for table in TABLES:
            as_int = registered or table == "k_bigint"
            crud_dbapi(f"psycopg2, {table}, {mode}", conn, table, exec_psycopg2,
                       int if as_int else str, (lambda i: i) if as_int else str)
        rows = exec_psycopg2(conn, "SELECT array_agg(id) FROM k_snowflake")
        check(f"psycopg2, {mode}: snowflake[] is "
              + ("a list of int" if registered else "a string"),
              isinstance(rows[0][0], list) and all(type(i) is int for i in rows[0][0])
              if registered else type(rows[0][0]) is str, rows)
        # A Decimal written as a numeric literal: the snowflake = numeric operator.
        ident = exec_psycopg2(conn, "INSERT INTO k_snowflake (note) VALUES ('decimal') "
                                    "RETURNING id::bigint")[0][0]
        dec = decimal.Decimal(f"{ident}.0")
        with conn.cursor() as cur:
            cur.execute("SELECT note FROM k_snowflake WHERE id = %s", (dec,))
            check(f"psycopg2, {mode}: a Decimal goes as a numeric literal",
                  f"= {ident}.0".encode() in cur.query, cur.query)
            check(f"psycopg2, {mode}: SELECT by a Decimal id", cur.fetchall() == [("decimal",)])
            cur.execute("UPDATE k_snowflake SET id = %s WHERE id = %s RETURNING id::bigint",
                        (decimal.Decimal(f"{ident + 1}.000"), dec))
            check(f"psycopg2, {mode}: UPDATE SET id to a Decimal",
                  cur.fetchall() == [(ident + 1,)])
        conn.commit()
        conn.close()


def exec_psycopg(binary):
    def run(conn, sql, params=None):
        return conn.execute(sql, params, binary=binary).fetchall()
    return run


def run_psycopg():
    for registered in (False, True):
        conn = psycopg.connect(host=HOST, port=PORT, user="postgres", dbname="postgres")
        if registered:
            snippet("psycopg")["register_snowflake"](conn)
        mode = "with the snippet" if registered else "without the snippet"
        for binary in (False, True):
            fmt = "binary" if binary else "text"
            for table in TABLES:
                if registered or table == "k_bigint":
                    kind, shown = int, (lambda i: i)
                elif binary:
                    kind, shown = bytes, (lambda i: struct.pack(">q", i))
                else:
                    kind, shown = str, str
                crud_dbapi(f"psycopg 3 ({fmt}), {table}, {mode}", conn, table,
                           exec_psycopg(binary), kind, shown)
        rows = conn.execute("SELECT array_agg(id) FROM k_snowflake").fetchall()
        check(f"psycopg 3, {mode}: snowflake[] is "
              + ("a list of int" if registered else "a string"),
              isinstance(rows[0][0], list) and all(type(i) is int for i in rows[0][0])
              if registered else type(rows[0][0]) is str, rows)
        # A Decimal goes as a numeric parameter ($1 of type numeric).
        ident = conn.execute("INSERT INTO k_snowflake (note) VALUES ('decimal') "
                             "RETURNING id::bigint").fetchone()[0]
        dec = decimal.Decimal(ident)
        rows = conn.execute("SELECT note, pg_typeof(%s)::text FROM k_snowflake WHERE id = %s",
                            (dec, dec)).fetchall()
        check(f"psycopg 3, {mode}: SELECT by a Decimal (numeric) id",
              rows == [("decimal", "numeric")], rows)
        rows = conn.execute("INSERT INTO k_snowflake (id, note) VALUES (%s, 'decimal insert') "
                            "RETURNING id::bigint", (decimal.Decimal(ident + 1),)).fetchall()
        check(f"psycopg 3, {mode}: INSERT a Decimal id", rows == [(ident + 1,)], rows)
        rows = conn.execute("DELETE FROM k_snowflake WHERE id = %s RETURNING note",
                            (decimal.Decimal(ident + 1),)).fetchall()
        check(f"psycopg 3, {mode}: DELETE by a Decimal id", rows == [("decimal insert",)], rows)
        # A Python int below 32768 goes as a smallint parameter: INSERT,
        # SELECT and DELETE by it (snowflake = smallint, the cast from it).
        rows = conn.execute("INSERT INTO k_snowflake (id, note) VALUES (%s, 'small') "
                            "RETURNING pg_typeof(%s)::text", (4242, 4242)).fetchall()
        check(f"psycopg 3, {mode}: INSERT a small int id (sent as smallint)",
              rows == [("smallint",)], rows)
        rows = conn.execute("SELECT note FROM k_snowflake WHERE id = %s", (4242,)).fetchall()
        check(f"psycopg 3, {mode}: SELECT by a small int id", rows == [("small",)], rows)
        rows = conn.execute("DELETE FROM k_snowflake WHERE id = %s RETURNING note",
                            (4242,)).fetchall()
        check(f"psycopg 3, {mode}: DELETE by a small int id", rows == [("small",)], rows)
        conn.commit()
        try:
            conn.execute("INSERT INTO k_snowflake (id) VALUES (%s)", (decimal.Decimal("1.5"),))
            raise AssertionError("a Decimal with a fraction was taken as a snowflake")
        except psycopg.errors.NumericValueOutOfRange as e:
            check(f"psycopg 3, {mode}: a Decimal with a fraction is refused (22003), named",
                  e.sqlstate == "22003" and "1.5" in str(e), e)
        conn.rollback()
        conn.close()


async def crud_asyncpg(label, conn, table, expect_int):
    ident = await conn.fetchval("SELECT snowflake_nextval()")
    key = ident if expect_int else str(ident)
    got = await conn.fetchval(f"INSERT INTO {table} (id, note) VALUES ($1, 'explicit') RETURNING id",
                              key)
    check(f"{label}: INSERT returns {'int' if expect_int else 'str'}",
          type(got) is type(key) and got == key, repr(got))
    got = await conn.fetchval(f"INSERT INTO {table} (note) VALUES ('default') RETURNING id")
    check(f"{label}: INSERT ... DEFAULT returns {'int' if expect_int else 'str'}",
          type(got) is type(key), repr(got))
    rows = await conn.fetch(f"SELECT id, note FROM {table} WHERE id = $1", key)
    check(f"{label}: SELECT by id", [tuple(r) for r in rows] == [(key, "explicit")], rows)
    got = await conn.fetchval(f"UPDATE {table} SET note = 'updated' WHERE id = $1 RETURNING note",
                              key)
    check(f"{label}: UPDATE by id", got == "updated", got)
    got = await conn.fetchval(f"DELETE FROM {table} WHERE id = $1 RETURNING note", key)
    check(f"{label}: DELETE by id", got == "updated", got)
    return ident


async def run_asyncpg():
    for registered in (False, True):
        conn = await asyncpg.connect(host=HOST, port=PORT, user="postgres", database="postgres")
        if registered:
            await snippet("asyncpg")["register_snowflake"](conn)
        mode = "with the snippet" if registered else "without the snippet"
        await crud_asyncpg(f"asyncpg, k_bigint, {mode}", conn, "k_bigint", True)
        await crud_asyncpg(f"asyncpg, k_snowflake, {mode}", conn, "k_snowflake", registered)
        if not registered:
            ident = await conn.fetchval("SELECT snowflake_nextval()")
            try:
                await conn.fetchval("SELECT note FROM k_snowflake WHERE id = $1", ident)
                raise AssertionError("asyncpg took an int for a snowflake parameter")
            except asyncpg.DataError as e:
                check(f"asyncpg, {mode}: an int parameter is refused",
                      f"invalid input for query argument $1: {ident} (expected str, got int)"
                      in str(e), e)
        await conn.close()


def orm_classes():
    base = declarative_base()
    classes = {}
    for table in TABLES:
        classes[table] = type(table, (base,), {
            "__tablename__": table,
            "id": sa.Column(sa.BigInteger, primary_key=True,
                            server_default=sa.text("snowflake_nextval()")),
            "note": sa.Column(sa.Text),
        })
    return classes


async def run_sqlalchemy():
    url = sa.engine.URL.create("postgresql+asyncpg", username="postgres", port=PORT,
                               database="postgres", query={"host": HOST})
    classes = orm_classes()
    for registered in (False, True):
        engine = create_async_engine(url, poolclass=sa.pool.NullPool)
        if registered:
            snippet("asyncpg", "sqlalchemy-asyncpg")["register_snowflake_on"](engine)
        mode = "with the snippet" if registered else "without the snippet"
        for table, cls in classes.items():
            label = f"SQLAlchemy over asyncpg, {table}, {mode}"
            works = registered or table == "k_bigint"
            async with AsyncSession(engine, expire_on_commit=False) as session:
                row = cls(note="orm")
                session.add(row)
                await session.commit()
                ident = row.id
                check(f"{label}: the inserted row's key is loaded as "
                      + ("int" if works else "str"), type(ident) is (int if works else str),
                      repr(ident))
            async with AsyncSession(engine) as session:
                loaded = (await session.execute(
                    sa.select(cls).where(cls.id == int(ident)))).scalar_one()
                check(f"{label}: SELECT by an int id", loaded.note == "orm", loaded.note)
                loaded.note = "updated"
                if works:
                    await session.commit()
                    check(f"{label}: UPDATE of a loaded row", True)
                else:
                    try:
                        await session.commit()
                        raise AssertionError(f"{label}: the UPDATE of a loaded row worked")
                    except sa.exc.DBAPIError as e:
                        check(f"{label}: UPDATE of a loaded row fails, the str key sent as BIGINT",
                              "'str' object cannot be interpreted as an integer" in str(e), e)
            async with AsyncSession(engine) as session:
                loaded = (await session.execute(
                    sa.select(cls).where(cls.id == int(ident)))).scalar_one()
                await session.delete(loaded)
                if works:
                    await session.commit()
                    check(f"{label}: DELETE of a loaded row", True)
                else:
                    try:
                        await session.commit()
                        raise AssertionError(f"{label}: the DELETE of a loaded row worked")
                    except sa.exc.DBAPIError as e:
                        check(f"{label}: DELETE of a loaded row fails, the str key sent as BIGINT",
                              "'str' object cannot be interpreted as an integer" in str(e), e)
            async with AsyncSession(engine) as session:
                left = (await session.execute(sa.select(sa.func.count()).select_from(cls).where(
                    cls.id == int(ident)))).scalar_one()
                check(f"{label}: the row is " + ("gone" if works else "still there"),
                      left == (0 if works else 1), left)
        await engine.dispose()


def main():
    run_psycopg2()
    run_psycopg()
    asyncio.run(run_asyncpg())
    asyncio.run(run_sqlalchemy())
    print("python drivers: all checks passed")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)

// The application's side of the recipes (docs/frameworks/drizzle.md), run
// after `drizzle-kit migrate` created its tables. Prints "ok: ..." per
// assertion and exits non-zero at the first that fails.
const assert = require('node:assert/strict');
const { Pool } = require('pg');
const { drizzle } = require('drizzle-orm/node-postgres');
const { sql, eq, and, gte, lt, inArray } = require('drizzle-orm');
const { orders, events } = require('./schema.js');
const { ok } = require('./check'); // tests/server/frameworks/check.js

const pool = new Pool({
    host: process.env.SF_SOCKDIR,
    port: Number(process.env.SF_PORT),
    user: 'postgres',
    database: process.env.SF_DB,
});
const db = drizzle(pool);

// The stored key's digits, read by a query of its own, not through Drizzle.
async function storedIds(table, note) {
    const { rows } = await pool.query(`SELECT id::text AS id FROM ${table} WHERE note = $1 ORDER BY id`, [note]);
    return rows.map((r) => r.id);
}
const aboveDoubles = 2n ** 53n;
const sortedStrings = (ids) => ids.map(String).sort();

// JSON.stringify refuses a BigInt: write IDs as strings, every digit kept.
function toJson(value) {
    return JSON.stringify(value, (key, v) => (typeof v === 'bigint' ? v.toString() : v));
}

async function theKey() {
    const [row] = await db.insert(orders).values({ note: 'key' }).returning({ id: orders.id });
    assert.equal(typeof row.id, 'bigint');
    ok(`insert ... returning() reads the bigint key back as a BigInt (${row.id})`);
    assert.ok(row.id > aboveDoubles, `${row.id} is not above 2^53`);
    ok('the key is above 2^53, where a JavaScript number would lose digits');
    assert.deepEqual(await storedIds('orders', 'key'), [row.id.toString()]);
    ok('the key Drizzle returned is the one stored');
    const found = await db.select().from(orders).where(eq(orders.id, row.id));
    assert.deepEqual(found, [{ id: row.id, note: 'key' }]);
    ok('a select by the returned key finds the row');
}

async function theSnowflakeType() {
    const [row] = await db.insert(events).values({ note: 'type' }).returning();
    assert.equal(typeof row.id, 'bigint');
    assert.ok(row.id > aboveDoubles, `${row.id} is not above 2^53`);
    ok(`a snowflake key comes back through the customType as a BigInt (${row.id})`);
    assert.deepEqual(await storedIds('events', 'type'), [row.id.toString()]);
    ok('the snowflake key Drizzle returned is the one stored');
    const found = await db.select().from(events).where(eq(events.id, row.id));
    assert.deepEqual(found, [{ id: row.id, note: 'type' }]);
    ok('a select by the returned snowflake key finds the row');
}

// Rows with IDs composed at fixed past times (worker 900, which no server
// uses), then rows Drizzle has the database mint now.
const past = ['2024-01-01T00:00:00Z', '2024-01-02T00:00:00Z', '2024-01-03T12:00:00Z',
              '2024-01-04T00:00:00Z', '2024-01-05T00:00:00Z'];
const windowStart = new Date('2024-01-02T00:00:00Z');
const windowEnd = new Date('2024-01-04T00:00:00Z');

async function timeFilters(table, label, since, until) {
    const composed = await db.insert(table)
        .values(past.map((t) => ({ id: sql`snowflake_compose(${t}::timestamptz, 900, 0)`, note: `${label} ${t}` })))
        .returning({ id: table.id });
    const inWindow = composed.slice(1, 3).map((r) => r.id);
    // The server's clock before the inserts, to the millisecond: an ID's time
    // is the start of its millisecond.
    const { rows: [{ t0 }] } = await pool.query("SELECT date_trunc('milliseconds', clock_timestamp()) AS t0");
    const minted = await db.insert(table)
        .values([{ note: `${label} now` }, { note: `${label} now` }, { note: `${label} now` }])
        .returning({ id: table.id });

    const between = await db.select({ id: table.id }).from(table)
        .where(and(since(table, windowStart), until(table, windowEnd)));
    assert.deepEqual(sortedStrings(between.map((r) => r.id)), sortedStrings(inWindow));
    ok(`${label}: the window [2024-01-02, 2024-01-04) returns exactly the 2 composed rows inside it`);
    const recent = await db.select({ id: table.id }).from(table).where(since(table, t0));
    assert.deepEqual(sortedStrings(recent.map((r) => r.id)), sortedStrings(minted.map((r) => r.id)));
    ok(`${label}: the window from the server's time before the inserts returns exactly the 3 rows minted since`);
}

// A bigint key: compare with the boundary functions (docs/time-queries.md).
const bigintSince = (table, t) => gte(table.id, sql`snowflake_first_at_or_after(${t})`);
const bigintUntil = (table, t) => lt(table.id, sql`snowflake_first_at_or_after(${t})`);
// A snowflake key compares with a timestamptz: say the parameter is one.
const snowflakeSince = (table, t) => gte(table.id, sql`${t}::timestamptz`);
const snowflakeUntil = (table, t) => lt(table.id, sql`${t}::timestamptz`);

async function untypedTimeTrap() {
    // gte(events.id, date) writes the Date through the column's toDriver, as
    // a snowflake: PostgreSQL refuses the text (22P02).
    await assert.rejects(db.select().from(events).where(gte(events.id, windowStart)), (e) => {
        const cause = e.cause ?? e;
        assert.equal(cause.code, '22P02', `${e.message}: not 22P02`);
        return true;
    });
    ok('trap: gte(events.id, aDate) without ::timestamptz fails with 22P02 (the Date is sent as a snowflake)');
}

async function json() {
    const rows = await db.select().from(orders).where(inArray(orders.note, ['key', 'orders now']));
    assert.throws(() => JSON.stringify(rows), /BigInt/);
    ok('trap: JSON.stringify refuses the BigInt keys (TypeError)');
    const text = toJson(rows);
    const stored = [...await storedIds('orders', 'key'), ...await storedIds('orders', 'orders now')];
    assert.equal(stored.length, 4);
    for (const id of stored) {
        assert.ok(BigInt(id) > aboveDoubles);
        assert.ok(text.includes(`"id":"${id}"`), `${text} lacks "id":"${id}"`);
    }
    ok('the JSON the application writes carries every digit of the 4 stored keys, as strings');
    assert.deepEqual(sortedStrings(JSON.parse(text).map((r) => r.id)), sortedStrings(stored));
    ok('JSON.parse of that text gives back the stored keys exactly');
}

(async () => {
    try {
        await theKey();
        await theSnowflakeType();
        await timeFilters(orders, 'orders', bigintSince, bigintUntil);
        await timeFilters(events, 'events', snowflakeSince, snowflakeUntil);
        await untypedTimeTrap();
        await json();
    } finally {
        await pool.end();
    }
})().catch((e) => {
    console.error(`FAILED: ${e.stack}`);
    process.exit(1);
});

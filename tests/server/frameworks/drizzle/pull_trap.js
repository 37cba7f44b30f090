// What drizzle-kit pull makes of the tables (run after app.js): for the
// bigint key, bigint({ mode: "number" }), which rounds the IDs; for the
// snowflake key, unknown("id"), which does not load. The pulled schemas are
// TypeScript: tsx loads them, as an application's build would.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const tsx = require('tsx/cjs/api');
const { Pool } = require('pg');
const { drizzle } = require('drizzle-orm/node-postgres');
const { eq, sql } = require('drizzle-orm');
const { ok } = require('./check'); // tests/server/frameworks/check.js

const pool = new Pool({
    host: process.env.SF_SOCKDIR,
    port: Number(process.env.SF_PORT),
    user: 'postgres',
    database: process.env.SF_DB,
});
const db = drizzle(pool);

(async () => {
    try {
        const ordersTs = fs.readFileSync('pulled-orders/schema.ts', 'utf8');
        assert.match(ordersTs, /id: bigint\(\{ mode: "number" \}\)\.default\(sql`snowflake_nextval\(\)`\)/);
        ok('trap: drizzle-kit pull writes the bigint key as bigint({ mode: "number" })');
        const { orders } = tsx.require('./pulled-orders/schema.ts', __filename);
        const [minted] = await db.insert(orders).values({ note: 'pulled' }).returning({ id: orders.id });
        assert.equal(typeof minted.id, 'number');
        ok('trap: with it, insert ... returning() reads the key as a number');
        // Today's IDs lie between 2^59 and 2^60, where doubles are 128 apart:
        // an ID survives only if its sequence is a multiple of 128, as the
        // first ID of each millisecond is. The second is not.
        const first = sql`snowflake_compose('2025-06-01 00:00:00+00', 900, 0)`;
        const second = sql`snowflake_compose('2025-06-01 00:00:01+00', 900, 1)`;
        const [a, b] = await db.insert(orders)
            .values([{ id: first, note: 'sequence 0' }, { id: second, note: 'sequence 1' }])
            .returning({ id: orders.id });
        const { rows: stored } = await pool.query(
            "SELECT id::text AS id FROM orders WHERE note IN ('sequence 0', 'sequence 1') ORDER BY note");
        assert.equal(BigInt(a.id).toString(), stored[0].id);
        ok(`trap: an ID with sequence 0 comes through exactly (${stored[0].id})`);
        assert.notEqual(BigInt(b.id).toString(), stored[1].id);
        ok(`trap: an ID with sequence 1 does not: returning() gives ${BigInt(b.id)} for the stored ${stored[1].id}`);
        const found = await db.select().from(orders).where(eq(orders.id, b.id));
        assert.deepEqual(found, []);
        ok('trap: and a select by that returned id finds nothing');

        const eventsTs = fs.readFileSync('pulled-events/schema.ts', 'utf8');
        assert.match(eventsTs, /\/\/ TODO: failed to parse database type 'snowflake'\n\s*id: unknown\("id"\)\.primaryKey\(\)\.notNull\(\),/);
        ok('trap: drizzle-kit pull writes a snowflake key as unknown("id"), without its default');
        assert.throws(() => tsx.require('./pulled-events/schema.ts', __filename), /unknown is not defined/);
        ok('trap: that pulled schema does not load (ReferenceError: unknown is not defined)');
    } finally {
        await pool.end();
    }
})().catch((e) => {
    console.error(`FAILED: ${e.stack}`);
    process.exit(1);
});

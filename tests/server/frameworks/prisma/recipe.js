// Prisma 7 (prisma-client generator, node-postgres driver adapter): the
// recipes of docs/frameworks/prisma.md, each checked against what the
// database stored. Prints "ok: ..." per check and exits non-zero at the first
// that fails. Run it after prisma generate (see run).
const fs = require('node:fs');
const pg = require('pg');
const { PrismaPg } = require('@prisma/adapter-pg');
const { PrismaClient } = require('./generated/client.ts');
const { ok, expectError } = require('./check'); // tests/server/frameworks/check.js

const connection = {
  host: process.env.SF_SOCKDIR,
  port: Number(process.env.SF_PORT),
  user: 'postgres',
  database: process.env.SF_DB,
};


// IDs composed at fixed past times (worker 1023, which no server uses).
const composedAt = ['2026-01-01T00:00:00Z', '2026-02-01T00:00:00Z', '2026-02-15T12:00:00Z',
  '2026-03-01T00:00:00Z'].map((t) => new Date(t));

async function main() {
  // What prisma migrate deploy would run (it needs the schema engine, which
  // cannot be had here): the migration's SQL.
  const sql = new pg.Client(connection);
  await sql.connect();
  await sql.query(fs.readFileSync('prisma/migrations/20261126000000_items_and_orders/migration.sql', 'utf8'));
  // The IDs as the database prints them, read apart from Prisma.
  const storedIds = async (table) =>
    (await sql.query(`SELECT id::text AS id, note FROM ${table} ORDER BY id`)).rows;

  // The pg adapter sends a Date as its UTC time without the zone, and reads a
  // timestamptz as if it were UTC: keep its sessions in UTC.
  const prisma = new PrismaClient({ adapter: new PrismaPg({ ...connection, options: '-c TimeZone=UTC' }) });
  const [{ now: serverTime }] = await prisma.$queryRaw`SELECT now()`;

  // The key: the database makes it, create() reads it back.
  const item = await prisma.item.create({ data: { note: 'minted 1' } });
  ok('create() gives the bigint key as a BigInt', typeof item.id === 'bigint', typeof item.id);
  ok('the key is above 2^53', item.id > 2n ** 53n, item.id);
  let stored = await storedIds('items');
  ok('the returned key is the stored one', stored[0].id === item.id.toString(), `${item.id} vs ${stored[0].id}`);
  const found = await prisma.item.findUnique({ where: { id: item.id } });
  ok('findUnique by the BigInt key finds its row', found !== null && found.note === 'minted 1');
  await prisma.item.create({ data: { note: 'minted 2' } });

  // The snowflake type, modelled as BigInt.
  const order = await prisma.order.create({ data: { note: 'minted 1' } });
  ok('the snowflake key reads as a BigInt through the model', typeof order.id === 'bigint', typeof order.id);
  stored = await storedIds('orders');
  ok('the returned snowflake key is the stored one', stored[0].id === order.id.toString(),
    `${order.id} vs ${stored[0].id}`);
  await prisma.order.create({ data: { note: 'minted 2' } });

  // Time filters: rows with IDs of known past times beside the ones just
  // minted, inserted apart from Prisma (node-postgres sends a Date with its zone).
  for (const t of composedAt) {
    for (const table of ['items', 'orders']) {
      await sql.query(`INSERT INTO ${table} (id, note) VALUES (snowflake_compose($1, 1023, 0), $2)`,
        [t, `composed ${t.toISOString()}`]);
    }
  }
  const from = new Date('2026-02-01T00:00:00Z');
  const to = new Date('2026-03-01T00:00:00Z');
  const inWindow = ['composed 2026-02-01T00:00:00.000Z', 'composed 2026-02-15T12:00:00.000Z'];
  const notes = (rows) => JSON.stringify(rows.map((r) => r.note));

  // Either key: the first ID of each time, then the model's where.
  const firstIdAt = async (t) =>
    (await prisma.$queryRaw`SELECT snowflake_first_at_or_after(${t}::timestamptz) AS id`)[0].id;
  const window = { gte: await firstIdAt(from), lt: await firstIdAt(to) };
  const items = await prisma.item.findMany({ where: { id: window }, orderBy: { id: 'asc' } });
  ok('bigint key: [2026-02-01, 2026-03-01) gives exactly the rows composed in it',
    notes(items) === JSON.stringify(inWindow), notes(items));
  ok('$queryRaw gives a bigint column as a BigInt', typeof window.gte === 'bigint', typeof window.gte);
  const orders = await prisma.order.findMany({ where: { id: window }, orderBy: { id: 'asc' } });
  ok('snowflake key: [2026-02-01, 2026-03-01) gives exactly the rows composed in it',
    notes(orders) === JSON.stringify(inWindow), notes(orders));

  const since = { gte: await firstIdAt(serverTime) };
  const mintedItems = await prisma.item.findMany({ where: { id: since }, orderBy: { id: 'asc' } });
  ok('bigint key: since a server time read before the inserts gives exactly the minted rows',
    notes(mintedItems) === '["minted 1","minted 2"]', notes(mintedItems));

  // snowflake key in raw SQL: compare with the time itself, typed timestamptz.
  const rawOrders = await prisma.$queryRaw`SELECT id, note FROM orders
    WHERE id >= ${serverTime}::timestamptz ORDER BY id`;
  ok('snowflake key: since a server time read before the inserts gives exactly the minted rows',
    notes(rawOrders) === '["minted 1","minted 2"]', notes(rawOrders));
  ok('trap: $queryRaw gives the snowflake key as a string (the model gives a BigInt)',
    typeof rawOrders[0].id === 'string' && rawOrders[0].id === order.id.toString(), typeof rawOrders[0].id);

  // A session in another time zone (PGOPTIONS, see run): the same Date names
  // another time, and the window loses a row, without an error.
  const elsewhere = new PrismaClient({ adapter: new PrismaPg(connection) });
  const [{ id: shiftedFrom }] = await elsewhere.$queryRaw`SELECT snowflake_first_at_or_after(${from}::timestamptz) AS id`;
  const shifted = await prisma.item.findMany({ where: { id: { gte: shiftedFrom, lt: window.lt } }, orderBy: { id: 'asc' } });
  ok('trap: with the session not in UTC, a Date parameter is read in its zone (the window loses a row)',
    notes(shifted) === JSON.stringify(inWindow.slice(1)), notes(shifted));
  await elsewhere.$disconnect();

  // JSON: a BigInt has no JSON form; write it as a string.
  const rows = await prisma.order.findMany({ orderBy: { id: 'asc' } });
  await expectError('JSON.stringify refuses a BigInt (no silent rounding)',
    (async () => JSON.stringify(rows))(), /Do not know how to serialize a BigInt/);
  const json = JSON.stringify(rows, (key, value) => (typeof value === 'bigint' ? value.toString() : value));
  stored = await storedIds('orders');
  ok('the JSON carries every stored ID, every digit, as a string',
    JSON.stringify(JSON.parse(json).map((r) => r.id)) === JSON.stringify(stored.map((r) => r.id)), json);

  await prisma.$disconnect();
  await sql.end();
}

// The message first, on the FAIL line: some errors' stacks (Sequelize's) do not carry it.
main().catch((e) => {
  console.error(`FAIL: ${e.name}: ${e.message}`);
  console.error(e.stack);
  process.exit(1);
});

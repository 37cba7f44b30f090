// Knex 3 with node-postgres: the recipes of docs/frameworks/knex.md, each
// checked against what the database stored. Prints "ok: ..." per check and
// exits non-zero at the first that fails.
const { connect } = require('./db');
const { ok, expectError } = require('./check'); // tests/server/frameworks/check.js

// The IDs as the database prints them, read apart from Knex's parsers.
async function storedIds(knex, table) {
  const { rows } = await knex.raw('SELECT id::text AS id, note FROM ?? ORDER BY id', [table]);
  return rows;
}

// IDs composed at fixed past times (worker 1023, which no server uses;
// sequence 1, so that no double holds them: see the traps).
const composedAt = ['2026-01-01T00:00:00Z', '2026-02-01T00:00:00Z', '2026-02-15T12:00:00Z',
  '2026-03-01T00:00:00Z'].map((t) => new Date(t));

async function main() {
  const knex = await connect();
  await knex.migrate.latest({ directory: './migrations' });
  const defaults = await knex('information_schema.columns')
    .select('table_name', 'udt_name', 'column_default')
    .where({ table_schema: 'public', column_name: 'id' }).whereIn('table_name', ['items', 'orders'])
    .orderBy('table_name');
  ok('the migration makes items.id bigint and orders.id snowflake, both DEFAULT snowflake_nextval()',
    JSON.stringify(defaults) === JSON.stringify([
      { table_name: 'items', udt_name: 'int8', column_default: 'snowflake_nextval()' },
      { table_name: 'orders', udt_name: 'snowflake', column_default: 'snowflake_nextval()' },
    ]), JSON.stringify(defaults));

  const { rows: [{ now: serverTime }] } = await knex.raw('SELECT now()');

  // The key: the database makes it, returning() reads it back.
  const [item] = await knex('items').insert({ note: 'minted 1' }).returning(['id', 'note']);
  ok('insert().returning() gives the bigint key as a BigInt', typeof item.id === 'bigint', typeof item.id);
  ok('the key is above 2^53', item.id > 2n ** 53n, item.id);
  let stored = await storedIds(knex, 'items');
  ok('the returned key is the stored one', stored.length === 1 && stored[0].id === item.id.toString(),
    `${item.id} vs ${JSON.stringify(stored)}`);
  const found = await knex('items').where({ id: item.id }).first();
  ok('a BigInt key finds its row', found !== undefined && found.note === 'minted 1');
  await knex('items').insert({ note: 'minted 2' });

  // The snowflake type: read as a BigInt by its OID's parser (db.js).
  const [order] = await knex('orders').insert({ note: 'minted 1' }).returning('id');
  ok('the snowflake key reads as a BigInt', typeof order.id === 'bigint', typeof order.id);
  stored = await storedIds(knex, 'orders');
  ok('the returned snowflake key is the stored one', stored[0].id === order.id.toString(),
    `${order.id} vs ${stored[0].id}`);
  await knex('orders').insert({ note: 'minted 2' });

  // Time filters: rows with IDs of known past times beside the ones just minted.
  for (const t of composedAt) {
    for (const table of ['items', 'orders']) {
      await knex(table).insert({
        id: knex.raw('snowflake_compose(?::timestamptz, 1023, 1)', [t]),
        note: `composed ${t.toISOString()}`,
      });
    }
  }
  const from = new Date('2026-02-01T00:00:00Z');
  const to = new Date('2026-03-01T00:00:00Z');
  const inWindow = ['composed 2026-02-01T00:00:00.000Z', 'composed 2026-02-15T12:00:00.000Z'];
  const notes = (rows) => JSON.stringify(rows.map((r) => r.note));

  // bigint key: compare with the first ID of each time.
  const firstIdAt = (t) => knex.raw('snowflake_first_at_or_after(?::timestamptz)', [t]);
  const items = await knex('items')
    .where('id', '>=', firstIdAt(from))
    .andWhere('id', '<', firstIdAt(to))
    .orderBy('id');
  ok('bigint key: [2026-02-01, 2026-03-01) gives exactly the rows composed in it',
    notes(items) === JSON.stringify(inWindow), notes(items));

  // snowflake key: compare with the time itself, a parameter typed timestamptz.
  const asTime = (t) => knex.raw('?::timestamptz', [t]);
  const orders = await knex('orders')
    .where('id', '>=', asTime(from))
    .andWhere('id', '<', asTime(to))
    .orderBy('id');
  ok('snowflake key: [2026-02-01, 2026-03-01) gives exactly the rows composed in it',
    notes(orders) === JSON.stringify(inWindow), notes(orders));

  const mintedItems = await knex('items').where('id', '>=', firstIdAt(serverTime)).orderBy('id');
  ok('bigint key: since a server time read before the inserts gives exactly the minted rows',
    notes(mintedItems) === '["minted 1","minted 2"]', notes(mintedItems));
  const mintedOrders = await knex('orders').where('id', '>=', asTime(serverTime)).orderBy('id');
  ok('snowflake key: since a server time read before the inserts gives exactly the minted rows',
    notes(mintedOrders) === '["minted 1","minted 2"]', notes(mintedOrders));

  // JSON: a BigInt has no JSON form; write it as a string.
  const rows = await knex('orders').select('id', 'note').orderBy('id');
  await expectError('JSON.stringify refuses a BigInt (no silent rounding)',
    (async () => JSON.stringify(rows))(), /Do not know how to serialize a BigInt/);
  const json = JSON.stringify(rows, (key, value) => (typeof value === 'bigint' ? value.toString() : value));
  stored = await storedIds(knex, 'orders');
  ok('the JSON carries every stored ID, every digit, as a string',
    JSON.stringify(JSON.parse(json).map((r) => r.id)) === JSON.stringify(stored.map((r) => r.id)), json);

  // Traps.
  const odd = items[0].id;
  ok('trap: as a Number an ID prints (and is sent) as another ID',
    String(Number(odd)) !== odd.toString(), `${odd} as ${Number(odd)}`);
  const byRounded = await knex('items').where({ id: Number(odd) });
  ok('trap: a select by that Number finds nothing', byRounded.length === 0, `${byRounded.length} rows`);
  await expectError('trap: a Date compared with the bigint key fails (22P02)',
    knex('items').where('id', '>=', serverTime), /^22P02 .*invalid input syntax for type bigint/);
  await expectError('trap: an untyped Date parameter against the snowflake key fails (22P02)',
    knex('orders').where('id', '>=', serverTime), /^22P02 .*invalid input syntax for type snowflake/);
  const all = await knex('items').where('id', '>=', serverTime.getTime());
  ok('trap: milliseconds since 1970 compared with the key match every row, without an error',
    all.length === 6, `${all.length} rows`);

  await knex.destroy();
}

// The message first, on the FAIL line: some errors' stacks (Sequelize's) do not carry it.
main().catch((e) => {
  console.error(`FAIL: ${e.name}: ${e.message}`);
  console.error(e.stack);
  process.exit(1);
});

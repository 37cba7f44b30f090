// Sequelize 6 with node-postgres: the recipes of docs/frameworks/sequelize.md,
// each checked against what the database stored. Prints "ok: ..." per check
// and exits non-zero at the first that fails.
const { Sequelize, DataTypes, Op, QueryTypes } = require('sequelize');
const { sequelize, Item, Order, readIdsAsBigInt } = require('./models');
const migration = require('./migrations/20261126000000-items-and-orders');
const { ok, expectError } = require('./check'); // tests/server/frameworks/check.js

// The IDs as the database prints them, read apart from any parser.
async function storedIds(table) {
  return sequelize.query(`SELECT id::text AS id, note FROM ${table} ORDER BY id`, { type: QueryTypes.SELECT });
}

// IDs composed at fixed past times (worker 1023, which no server uses).
const composedAt = ['2026-01-01T00:00:00Z', '2026-02-01T00:00:00Z', '2026-02-15T12:00:00Z',
  '2026-03-01T00:00:00Z'].map((t) => new Date(t));

async function main() {
  // What sequelize-cli's db:migrate does with the migration file (sequelize-cli
  // is not among the suite's modules).
  await migration.up(sequelize.getQueryInterface(), Sequelize);
  const defaults = await sequelize.query(`SELECT table_name, udt_name, column_default
      FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'id'
      ORDER BY table_name`, { type: QueryTypes.SELECT });
  ok('the migration makes items.id bigint and orders.id snowflake, both DEFAULT snowflake_nextval()',
    JSON.stringify(defaults) === JSON.stringify([
      { table_name: 'items', udt_name: 'int8', column_default: 'snowflake_nextval()' },
      { table_name: 'orders', udt_name: 'snowflake', column_default: 'snowflake_nextval()' },
    ]), JSON.stringify(defaults));

  const [{ now: serverTime }] = await sequelize.query('SELECT now()', { type: QueryTypes.SELECT });

  // The key: the database makes it, create() reads it back (RETURNING).
  const first = await Item.create({ note: 'minted 1' });
  ok('create() gives the bigint key as a string, by default', typeof first.id === 'string', typeof first.id);
  let stored = await storedIds('items');
  ok('the returned key is the stored one, every digit', stored[0].id === first.id,
    `${first.id} vs ${stored[0].id}`);
  ok('the key is above 2^53', BigInt(first.id) > 2n ** 53n, first.id);
  ok('as a string the key goes into JSON with every digit',
    JSON.stringify(first) === `{"id":"${stored[0].id}","note":"minted 1"}`, JSON.stringify(first));

  await readIdsAsBigInt();
  const item = await Item.create({ note: 'minted 2' });
  ok('with the parsers, create() gives the bigint key as a BigInt', typeof item.id === 'bigint', typeof item.id);
  stored = await storedIds('items');
  ok('that key is the stored one', stored[1].id === item.id.toString(), `${item.id} vs ${stored[1].id}`);
  const found = await Item.findByPk(item.id);
  ok('findByPk(BigInt) finds its row', found !== null && found.note === 'minted 2');

  // The snowflake type: read as a BigInt by its OID's parser (models.js).
  const order = await Order.create({ note: 'minted 1' });
  ok('the snowflake key reads as a BigInt', typeof order.id === 'bigint', typeof order.id);
  stored = await storedIds('orders');
  ok('the returned snowflake key is the stored one', stored[0].id === order.id.toString(),
    `${order.id} vs ${stored[0].id}`);
  await Order.create({ note: 'minted 2' });

  // Time filters: rows with IDs of known past times beside the ones just minted.
  for (const t of composedAt) {
    for (const Model of [Item, Order]) {
      await Model.create({
        id: Sequelize.fn('snowflake_compose', Sequelize.cast(t, 'timestamptz'), 1023, 0),
        note: `composed ${t.toISOString()}`,
      });
    }
  }
  const from = new Date('2026-02-01T00:00:00Z');
  const to = new Date('2026-03-01T00:00:00Z');
  const inWindow = ['composed 2026-02-01T00:00:00.000Z', 'composed 2026-02-15T12:00:00.000Z'];
  const notes = (rows) => JSON.stringify(rows.map((r) => r.note));

  // bigint key: compare with the first ID of each time.
  const firstIdAt = (t) => Sequelize.fn('snowflake_first_at_or_after', Sequelize.cast(t, 'timestamptz'));
  const items = await Item.findAll({
    where: { id: { [Op.gte]: firstIdAt(from), [Op.lt]: firstIdAt(to) } },
    order: [['id', 'ASC']],
  });
  ok('bigint key: [2026-02-01, 2026-03-01) gives exactly the rows composed in it',
    notes(items) === JSON.stringify(inWindow), notes(items));

  // snowflake key: compare with the time itself, cast to timestamptz.
  const asTime = (t) => Sequelize.cast(t, 'timestamptz');
  const orders = await Order.findAll({
    where: { id: { [Op.gte]: asTime(from), [Op.lt]: asTime(to) } },
    order: [['id', 'ASC']],
  });
  ok('snowflake key: [2026-02-01, 2026-03-01) gives exactly the rows composed in it',
    notes(orders) === JSON.stringify(inWindow), notes(orders));

  const mintedItems = await Item.findAll({ where: { id: { [Op.gte]: firstIdAt(serverTime) } }, order: [['id', 'ASC']] });
  ok('bigint key: since a server time read before the inserts gives exactly the minted rows',
    notes(mintedItems) === '["minted 1","minted 2"]', notes(mintedItems));
  const mintedOrders = await Order.findAll({ where: { id: { [Op.gte]: asTime(serverTime) } }, order: [['id', 'ASC']] });
  ok('snowflake key: since a server time read before the inserts gives exactly the minted rows',
    notes(mintedOrders) === '["minted 1","minted 2"]', notes(mintedOrders));

  // JSON: a BigInt has no JSON form; write it as a string.
  const rows = await Order.findAll({ order: [['id', 'ASC']] });
  await expectError('JSON.stringify refuses a BigInt (no silent rounding)',
    (async () => JSON.stringify(rows))(), /Do not know how to serialize a BigInt/);
  const json = JSON.stringify(rows, (key, value) => (typeof value === 'bigint' ? value.toString() : value));
  stored = await storedIds('orders');
  ok('the JSON carries every stored ID, every digit, as a string',
    JSON.stringify(JSON.parse(json).map((r) => r.id)) === JSON.stringify(stored.map((r) => r.id)), json);

  // Traps.
  const NoDefault = sequelize.define('NoDefault', {
    id: { type: DataTypes.BIGINT, primaryKey: true },
    note: DataTypes.TEXT,
  }, { tableName: 'items', timestamps: false });
  await expectError('trap: a model key without the defaultValue is inserted as NULL (23502)',
    NoDefault.create({ note: 'no default' }), /^23502 .*null value in column "id"/);
  const AutoItem = sequelize.define('AutoItem', {
    id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
    note: DataTypes.TEXT,
  }, { tableName: 'items', timestamps: false });
  const auto = await AutoItem.create({ note: 'autoIncrement' });
  stored = await storedIds('items');
  ok('autoIncrement on the table the migration made: the key is a Snowflake ID from the column default',
    typeof auto.id === 'bigint' && auto.id > 2n ** 53n
      && stored.some((r) => r.id === auto.id.toString() && r.note === 'autoIncrement'), `${auto.id}`);
  const Serial = sequelize.define('Serial', {
    id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
  }, { tableName: 'serial_items', timestamps: false });
  await Serial.sync();
  const [serial] = await sequelize.query(`SELECT data_type, column_default FROM information_schema.columns
      WHERE table_name = 'serial_items' AND column_name = 'id'`, { type: QueryTypes.SELECT });
  ok('trap: autoIncrement makes sync() write BIGSERIAL, a sequence instead of snowflake_nextval()',
    serial.column_default === "nextval('serial_items_id_seq'::regclass)", JSON.stringify(serial));
  await expectError('trap: a Date compared with the bigint key fails (22P02)',
    Item.findAll({ where: { id: { [Op.gte]: serverTime } } }), /^22P02 .*invalid input syntax for type bigint/);
  await expectError('trap: a Date compared with the snowflake key without the cast fails (22P02)',
    Order.findAll({ where: { id: { [Op.gte]: serverTime } } }), /^22P02 .*invalid input syntax for type snowflake/);
  const all = await Item.findAll({ where: { id: { [Op.gte]: serverTime.getTime() } } });
  ok('trap: milliseconds since 1970 compared with the key match every row, without an error',
    all.length === 7, `${all.length} rows`);

  await sequelize.close();
}

// The message first, on the FAIL line: some errors' stacks (Sequelize's) do not carry it.
main().catch((e) => {
  console.error(`FAIL: ${e.name}: ${e.message}`);
  console.error(e.stack);
  process.exit(1);
});

// The application's side of the recipes (docs/frameworks/typeorm.md), run
// after `typeorm migration:run` created its tables. Prints "ok: ..." per
// assertion and exits non-zero at the first that fails.
import assert from 'node:assert/strict';
import { ColumnType, DataSource, Entity, MoreThanOrEqual, PrimaryColumn, Raw, Repository } from 'typeorm';
import dataSource from './data-source';
import { Event, Order } from './entities';

const ok = (what: string) => console.log(`ok: ${what}`);
const aboveDoubles = 2n ** 53n;
const sorted = (ids: bigint[]) => ids.map(String).sort();

// The stored key's digits, read by a query of its own, not through TypeORM.
async function storedIds(table: string, note: string): Promise<string[]> {
    const rows = await dataSource.query(`SELECT id::text AS id FROM ${table} WHERE note = $1 ORDER BY id`, [note]);
    return rows.map((r: { id: string }) => r.id);
}

// JSON.stringify refuses a BigInt: write IDs as strings, every digit kept.
function toJson(value: unknown): string {
    return JSON.stringify(value, (key, v) => (typeof v === 'bigint' ? v.toString() : v));
}

async function theKey(repo: Repository<Order | Event>, table: string) {
    const saved = await repo.save(repo.create({ note: 'key' }));
    assert.equal(typeof saved.id, 'bigint');
    assert.ok(saved.id > aboveDoubles, `${saved.id} is not above 2^53`);
    ok(`${table}: save() reads the key the database generated back as a BigInt above 2^53 (${saved.id})`);
    assert.deepEqual(await storedIds(table, 'key'), [saved.id.toString()]);
    ok(`${table}: the key TypeORM returned is the one stored`);
    const found = await repo.findOneBy({ id: saved.id });
    assert.deepEqual({ ...found }, { id: saved.id, note: 'key' });
    ok(`${table}: findOneBy the returned key finds the row`);
    const renamed = await repo.save({ ...found!, note: 'renamed' });
    assert.deepEqual(await storedIds(table, 'renamed'), [saved.id.toString()]);
    assert.deepEqual(await storedIds(table, 'key'), []);
    ok(`${table}: save() of the found entity updates its row (the BigInt key identifies it)`);
    await repo.save({ ...renamed, note: 'key' });
    const raw = await repo.createQueryBuilder('t').select('t.id', 'id').where('t.id = :id', { id: saved.id }).getRawOne();
    assert.deepEqual(raw, { id: saved.id.toString() });
    ok(`${table}: without the transformer (a raw select) node-postgres gives the key as a string`);
}

// Rows with IDs composed at fixed past times (worker 900, which no server
// uses), then rows the database mints now.
const past = ['2024-01-01 00:00:00+00', '2024-01-02 00:00:00+00', '2024-01-03 12:00:00+00',
              '2024-01-04 00:00:00+00', '2024-01-05 00:00:00+00'];
const windowStart = new Date('2024-01-02T00:00:00Z');
const windowEnd = new Date('2024-01-04T00:00:00Z');

// A bigint key: compare with the boundary functions (docs/time-queries.md).
const bigintMintedIn = (since: Date, until?: Date) =>
    Raw((id) => `${id} >= snowflake_first_at_or_after(:since)` +
        (until ? ` AND ${id} < snowflake_first_at_or_after(:until)` : ''), { since, until });
// A snowflake key compares with a timestamptz: say the parameter is one.
const snowflakeMintedIn = (since: Date, until?: Date) =>
    Raw((id) => `${id} >= :since::timestamptz` + (until ? ` AND ${id} < :until::timestamptz` : ''), { since, until });

async function timeFilters(repo: Repository<Order | Event>, table: string, mintedIn: typeof bigintMintedIn) {
    const composed: bigint[] = [];
    for (const t of past) {
        const [{ id }] = await dataSource.query('SELECT snowflake_compose($1, 900, 0)::text AS id', [t]);
        composed.push(BigInt(id));
    }
    await repo.insert(composed.map((id, i) => ({ id, note: `composed ${past[i]}` })));
    // The server's clock before the inserts, to the millisecond: an ID's time
    // is the start of its millisecond.
    const [{ t0 }] = await dataSource.query("SELECT date_trunc('milliseconds', clock_timestamp()) AS t0");
    const minted = await repo.save(repo.create([{ note: 'now' }, { note: 'now' }, { note: 'now' }]));

    const between = await repo.findBy({ id: mintedIn(windowStart, windowEnd) });
    assert.deepEqual(sorted(between.map((r) => r.id)), sorted(composed.slice(1, 3)));
    ok(`${table}: the window [2024-01-02, 2024-01-04) returns exactly the 2 composed rows inside it`);
    const recent = await repo.findBy({ id: mintedIn(t0) });
    assert.deepEqual(sorted(recent.map((r) => r.id)), sorted(minted.map((r) => r.id)));
    ok(`${table}: the window from the server's time before the inserts returns exactly the 3 rows minted since`);
}

async function json(repo: Repository<Order | Event>, table: string) {
    const rows = await repo.findBy({ note: Raw((note) => `${note} IN ('key', 'now')`) });
    assert.throws(() => JSON.stringify(rows), /BigInt/);
    ok(`${table}: trap: JSON.stringify refuses the BigInt keys (TypeError)`);
    const text = toJson(rows);
    const stored = [...(await storedIds(table, 'key')), ...(await storedIds(table, 'now'))];
    assert.equal(stored.length, 4);
    for (const id of stored) {
        assert.ok(BigInt(id) > aboveDoubles);
        assert.ok(text.includes(`"id":"${id}"`), `${text} lacks "id":"${id}"`);
    }
    ok(`${table}: the JSON the application writes carries every digit of the 4 stored keys, as strings`);
    assert.deepEqual(JSON.parse(text).map((r: { id: string }) => r.id).sort(), stored.sort());
    ok(`${table}: JSON.parse of that text gives back the stored keys exactly`);
}

async function traps() {
    // MoreThanOrEqual(aDate) sends the Date as an untyped parameter, which
    // PostgreSQL reads as the column's type.
    for (const [repo, type] of [[dataSource.getRepository(Order), 'bigint'], [dataSource.getRepository(Event), 'snowflake']] as const) {
        await assert.rejects(repo.findBy({ id: MoreThanOrEqual(windowStart as unknown as bigint) }), (e: any) => {
            assert.equal(e.code, '22P02', `${e.message}: not 22P02`);
            assert.match(e.message, new RegExp(`invalid input syntax for type ${type}`));
            return true;
        });
        ok(`trap: findBy({ id: MoreThanOrEqual(aDate) }) on a ${type} key fails with 22P02`);
    }

    @Entity('snowflake_typed')
    class SnowflakeTyped {
        @PrimaryColumn({ type: 'snowflake' as ColumnType })
        id!: bigint;
    }
    const typed = new DataSource({ ...dataSource.options, entities: [SnowflakeTyped], migrations: [] });
    await assert.rejects(typed.initialize(), /Data type "snowflake" in "SnowflakeTyped.id" is not supported by "postgres" database/);
    ok("trap: an entity with type: 'snowflake' is refused (DataTypeNotSupportedError)");
}

(async () => {
    await dataSource.initialize();
    try {
        for (const [entity, table] of [[Order, 'orders'], [Event, 'events']] as const) {
            const repo: Repository<Order | Event> = dataSource.getRepository(entity);
            await theKey(repo, table);
            await timeFilters(repo, table, table === 'orders' ? bigintMintedIn : snowflakeMintedIn);
            await json(repo, table);
        }
        await traps();
    } finally {
        await dataSource.destroy();
    }
})().catch((e) => {
    console.error(`FAILED: ${e.stack}`);
    process.exit(1);
});

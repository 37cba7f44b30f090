// TypeORM's schema synchronisation against an application database with an
// entity for items, keyed by snowflake_nextval().
// Usage: node typeorm_sync.js SOCKDIR PORT DBNAME plan|dropschema
//   plan        the SQL that synchronize would run (the schema builder's
//               log, not run), one "up:" line per query
//   dropschema  initialize with dropSchema and synchronize, as a test setup
//               does: drops everything in the schema, then creates items
require('reflect-metadata');
const { DataSource, EntitySchema } = require('typeorm');

const Item = new EntitySchema({
    name: 'Item',
    tableName: 'items',
    columns: {
        id: { type: 'bigint', primary: true, default: () => 'snowflake_nextval()' },
        note: { type: 'text', nullable: true },
    },
});

(async () => {
    const [host, port, database, mode] = process.argv.slice(2);
    const ds = new DataSource({
        type: 'postgres', host, port: Number(port), username: 'postgres', database,
        entities: [Item], dropSchema: mode === 'dropschema', synchronize: mode === 'dropschema',
        logging: false,
    });
    try {
        await ds.initialize();
    } catch (e) {
        console.log(`initialize failed: ${e.message}`);
        process.exit(3);
    }
    if (mode === 'plan') {
        const log = await ds.driver.createSchemaBuilder().log();
        for (const q of log.upQueries) console.log('up:', q.query.replace(/\s+/g, ' ').trim());
    } else {
        console.log('initialized with dropSchema and synchronize');
    }
    await ds.destroy();
})().catch((e) => { console.error(e); process.exit(1); });

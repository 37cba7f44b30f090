// Applies the migrations with drizzle-orm's own migrator, as an application
// does at its start: unlike `drizzle-kit migrate` (0.31), which exits 1
// without a word, it throws the database's error.
// Usage: node migrate.js MIGRATIONS_DIR
const { Pool } = require('pg');
const { drizzle } = require('drizzle-orm/node-postgres');
const { migrate } = require('drizzle-orm/node-postgres/migrator');

(async () => {
    const pool = new Pool({
        host: process.env.SF_SOCKDIR,
        port: Number(process.env.SF_PORT),
        user: 'postgres',
        database: process.env.SF_DB,
    });
    try {
        await migrate(drizzle(pool), { migrationsFolder: process.argv[2] });
        console.log('migrations applied');
    } finally {
        await pool.end();
    }
})().catch((e) => {
    console.error(`migrate failed: ${e.cause?.message ?? e.message}`);
    process.exit(1);
});

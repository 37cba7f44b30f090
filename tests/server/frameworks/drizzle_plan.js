// What `drizzle-kit push` would run against the database, without running
// it: drizzle-kit's own pushSchema (its API), which diffs the schema with
// the database's introspection as push does. Prints each statement, then
// "data loss: true|false" and the warnings.
// Usage: node drizzle_plan.js SOCKDIR PORT DBNAME
const { Pool } = require('pg');
const { drizzle } = require('drizzle-orm/node-postgres');
const { pushSchema } = require('drizzle-kit/api');
const schema = require('./drizzle_schema.js');

(async () => {
    const [host, port, database] = process.argv.slice(2);
    const pool = new Pool({ host, port: Number(port), user: 'postgres', database });
    try {
        const plan = await pushSchema(schema, drizzle(pool));
        for (const s of plan.statementsToExecute) console.log('statement:', s.replace(/\s+/g, ' ').trim());
        console.log('data loss:', plan.hasDataLoss);
        for (const w of plan.warnings) console.log('warning:', w);
    } finally {
        await pool.end();
    }
})().catch((e) => { console.error(e); process.exit(1); });

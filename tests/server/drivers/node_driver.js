// node-postgres (npm's pg) against a table keyed by bigint and one keyed by
// snowflake, without and with the snippet of docs/client-drivers.md
// (extracted by snippets.py): insert, read, update and delete by id.
// Without the snippet both keys come back as strings (node-postgres reads
// int8 as a string too); with it the snowflake key is a BigInt, and BigInt
// parameters work.
//
// Usage: node node_driver.js NODE_MODULES_PARENT SOCKET_DIR PORT SNIPPETS
const [prefix, host, port, snippets] = process.argv.slice(2);
const { Client } = require(prefix + '/node_modules/pg');
const fs = require('fs');
const vm = require('vm');

// The page's snippet, run as the page shows it; it defines registerSnowflake.
const context = vm.createContext({});
vm.runInContext(fs.readFileSync(snippets + '/node-postgres.js', 'utf8') +
                '\nthis.registerSnowflake = registerSnowflake;', context,
                { filename: 'docs/client-drivers.md (node-postgres)' });

function check(what, cond, detail) {
    if (!cond) throw new Error(what + (detail === undefined ? '' : ': ' + detail));
    console.log('ok: ' + what);
}

async function crud(label, client, table, kind) {
    const ident = BigInt((await client.query('SELECT snowflake_nextval()::text AS id')).rows[0].id);
    let r = await client.query(`INSERT INTO ${table} (id, note) VALUES ($1, 'explicit') RETURNING id`,
                               [ident]);
    check(`${label}: INSERT with a BigInt id returns a ${kind}`,
          typeof r.rows[0].id === kind && String(r.rows[0].id) === String(ident),
          `${typeof r.rows[0].id} ${r.rows[0].id}`);
    r = await client.query(`INSERT INTO ${table} (note) VALUES ('default') RETURNING id`);
    check(`${label}: INSERT ... DEFAULT returns a ${kind}`, typeof r.rows[0].id === kind,
          typeof r.rows[0].id);
    r = await client.query(`SELECT id, note FROM ${table} WHERE id = $1`, [ident]);
    check(`${label}: SELECT by a BigInt id`,
          r.rows.length === 1 && r.rows[0].note === 'explicit' && String(r.rows[0].id) === String(ident));
    r = await client.query(`SELECT id FROM ${table} WHERE id = $1`, [String(ident)]);
    check(`${label}: SELECT by a string id`, r.rows.length === 1);
    r = await client.query(`UPDATE ${table} SET note = 'updated' WHERE id = $1`, [ident]);
    check(`${label}: UPDATE by id`, r.rowCount === 1, r.rowCount);
    r = await client.query(`DELETE FROM ${table} WHERE id = $1 RETURNING note`, [ident]);
    check(`${label}: DELETE by id`, r.rowCount === 1 && r.rows[0].note === 'updated');
}

(async () => {
    for (const registered of [false, true]) {
        const client = new Client({ host, port: Number(port), user: 'postgres', database: 'postgres' });
        await client.connect();
        if (registered) await context.registerSnowflake(client);
        const mode = registered ? 'with the snippet' : 'without the snippet';
        await crud(`node-postgres, k_bigint, ${mode}`, client, 'k_bigint', 'string');
        await crud(`node-postgres, k_snowflake, ${mode}`, client, 'k_snowflake',
                   registered ? 'bigint' : 'string');
        await client.end();
    }
    console.log('node-postgres: all checks passed');
})().catch((e) => { console.error('FAIL: ' + e.message); process.exit(1); });

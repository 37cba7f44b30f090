// The checks of the Node.js recipes (knex, sequelize, prisma, drizzle): each
// prints "ok: ..." and the first that fails prints "FAIL: ..." and ends the
// run non-zero (frameworks.sh quotes that line). Each stack's run copies
// this file beside its recipes.

function ok(what, condition = true, detail = undefined) {
    if (!condition) {
        console.error(`FAIL: ${what}${detail === undefined ? '' : `: ${detail}`}`);
        process.exit(1);
    }
    console.log(`ok: ${what}`);
}

// An error whose "SQLSTATE message" matches pattern: the SQLSTATE of the
// server's error (Sequelize keeps the driver's under .original), else the
// error's name.
async function expectError(what, promise, pattern) {
    try {
        await promise;
    } catch (e) {
        const code = e.original ? e.original.code : (e.code ?? e.name);
        ok(what, pattern.test(`${code} ${e.message}`), `${code} ${e.message}`);
        return;
    }
    ok(what, false, 'no error');
}

module.exports = { ok, expectError };

// drizzle-kit pull of one table (PULL_TABLE) into pulled-<table>/.
module.exports = {
    ...require('./drizzle.config.js'),
    out: `./pulled-${process.env.PULL_TABLE}`,
    tablesFilter: [process.env.PULL_TABLE],
};

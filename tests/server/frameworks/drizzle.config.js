// drizzle-kit's configuration for `drizzle-kit push` and `drizzle-kit pull`
// in the suite's application directory; the database from the environment
// (SF_SOCKDIR, SF_PORT, SF_DB), set by tests/server/frameworks.sh.
module.exports = {
    dialect: 'postgresql',
    schema: './drizzle_schema.js',
    out: './drizzle',
    dbCredentials: {
        host: process.env.SF_SOCKDIR,
        port: Number(process.env.SF_PORT),
        user: 'postgres',
        database: process.env.SF_DB,
        ssl: false,
    },
};

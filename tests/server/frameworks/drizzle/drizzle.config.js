// drizzle-kit's configuration: the schema, the migrations it generates and
// the database they are applied to (from the environment the suite sets).
module.exports = {
    dialect: 'postgresql',
    schema: './schema.js',
    out: './migrations',
    dbCredentials: {
        host: process.env.SF_SOCKDIR,
        port: Number(process.env.SF_PORT),
        user: 'postgres',
        database: process.env.SF_DB,
        ssl: false,
    },
};

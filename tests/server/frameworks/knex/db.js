// A Knex instance whose int8 and snowflake columns read as BigInt.
const pg = require('pg');
const knexFactory = require('knex');

// int8's OID is fixed (20); node-postgres reads it as a string unless told.
pg.types.setTypeParser(pg.types.builtins.INT8, BigInt);

async function connect() {
  const knex = knexFactory({
    client: 'pg',
    connection: {
      host: process.env.SF_SOCKDIR,
      port: Number(process.env.SF_PORT),
      user: 'postgres',
      database: process.env.SF_DB,
    },
  });
  // The snowflake type's OID differs per database: look it up once.
  const { rows } = await knex.raw("SELECT 'snowflake'::regtype::oid AS oid");
  pg.types.setTypeParser(rows[0].oid, BigInt);
  return knex;
}

module.exports = { connect };

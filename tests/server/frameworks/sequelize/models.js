// The models: the database makes each key, and create() reads it back.
const pg = require('pg');
const { Sequelize, DataTypes, QueryTypes } = require('sequelize');

const sequelize = new Sequelize({
  dialect: 'postgres',
  host: process.env.SF_SOCKDIR,
  port: Number(process.env.SF_PORT),
  username: 'postgres',
  database: process.env.SF_DB,
  logging: false,
});

const Item = sequelize.define('Item', {
  id: {
    type: DataTypes.BIGINT,
    primaryKey: true,
    defaultValue: Sequelize.literal('snowflake_nextval()'),
  },
  note: DataTypes.TEXT,
}, { tableName: 'items', timestamps: false });

const Order = sequelize.define('Order', {
  id: {
    type: 'snowflake',
    primaryKey: true,
    defaultValue: Sequelize.literal('snowflake_nextval()'),
  },
  note: DataTypes.TEXT,
}, { tableName: 'orders', timestamps: false });

// Sequelize reads int8 and snowflake columns as strings, which keep every
// digit. For BigInt instead: node-postgres's parsers, by OID (the snowflake
// type's differs per database).
async function readIdsAsBigInt() {
  pg.types.setTypeParser(pg.types.builtins.INT8, BigInt);
  const [{ oid }] = await sequelize.query("SELECT 'snowflake'::regtype::oid AS oid",
    { type: QueryTypes.SELECT });
  pg.types.setTypeParser(oid, BigInt);
}

module.exports = { sequelize, Item, Order, readIdsAsBigInt };

// The schema in Knex's migration language: a bigint key and a snowflake
// key, each filled by the database.
exports.up = async (knex) => {
  await knex.schema.createTable('items', (table) => {
    table.bigInteger('id').primary().defaultTo(knex.raw('snowflake_nextval()'));
    table.text('note');
  });
  await knex.schema.createTable('orders', (table) => {
    table.specificType('id', 'snowflake').primary().defaultTo(knex.raw('snowflake_nextval()'));
    table.text('note');
  });
};

exports.down = async (knex) => {
  await knex.schema.dropTable('orders');
  await knex.schema.dropTable('items');
};

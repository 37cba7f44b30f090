// The application's Drizzle schema: one table keyed by snowflake_nextval().
const { pgTable, bigint, text } = require('drizzle-orm/pg-core');
const { sql } = require('drizzle-orm');

exports.items = pgTable('items', {
    id: bigint('id', { mode: 'bigint' }).primaryKey().default(sql`snowflake_nextval()`),
    note: text('note'),
});

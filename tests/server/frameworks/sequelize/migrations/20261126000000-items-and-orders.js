// The schema as a sequelize-cli migration: a bigint key and a snowflake
// key, each filled by the database.
module.exports = {
  async up(queryInterface, Sequelize) {
    await queryInterface.createTable('items', {
      id: {
        type: Sequelize.BIGINT,
        primaryKey: true,
        defaultValue: Sequelize.literal('snowflake_nextval()'),
      },
      note: Sequelize.TEXT,
    });
    await queryInterface.createTable('orders', {
      id: {
        type: 'snowflake',
        primaryKey: true,
        defaultValue: Sequelize.literal('snowflake_nextval()'),
      },
      note: Sequelize.TEXT,
    });
  },

  async down(queryInterface) {
    await queryInterface.dropTable('orders');
    await queryInterface.dropTable('items');
  },
};

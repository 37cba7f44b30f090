import { MigrationInterface, QueryRunner, Table } from 'typeorm';

export class CreateOrdersAndEvents1795680000000 implements MigrationInterface {
    async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.createTable(
            new Table({
                name: 'orders',
                columns: [
                    { name: 'id', type: 'bigint', isPrimary: true, default: 'snowflake_nextval()' },
                    { name: 'note', type: 'text', isNullable: true },
                ],
            }),
        );
        await queryRunner.createTable(
            new Table({
                name: 'events',
                columns: [
                    { name: 'id', type: 'snowflake', isPrimary: true, default: 'snowflake_nextval()' },
                    { name: 'note', type: 'text', isNullable: true },
                ],
            }),
        );
    }

    async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.dropTable('events');
        await queryRunner.dropTable('orders');
    }
}

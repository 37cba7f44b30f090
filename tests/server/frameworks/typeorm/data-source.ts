// The DataSource of the application and of the TypeORM CLI (-d data-source.ts).
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { Event, Order } from './entities';
import { CreateOrdersAndEvents1795680000000 } from './1795680000000-CreateOrdersAndEvents';

export default new DataSource({
    type: 'postgres',
    host: process.env.SF_SOCKDIR,
    port: Number(process.env.SF_PORT),
    username: 'postgres',
    database: process.env.SF_DB,
    entities: [Order, Event],
    migrations: [CreateOrdersAndEvents1795680000000],
});

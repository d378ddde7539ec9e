import { MikroORM } from '@mikro-orm/sqlite';
import { mikroOrmConfig } from './mikro-orm.config';

export type Orm = MikroORM;

/** Opens the database and brings its schema up to date (migrations are idempotent). */
export async function initOrm(databasePath: string): Promise<Orm> {
  const orm = await MikroORM.init(mikroOrmConfig(databasePath));
  try {
    await orm.getMigrator().up();
  } catch (error) {
    await orm.close(true);
    throw error;
  }
  return orm;
}

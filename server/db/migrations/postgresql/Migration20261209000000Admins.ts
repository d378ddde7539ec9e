import { Migration } from '@mikro-orm/migrations';

/** Whether a user is an admin: sees /admin and may run what the CLI runs (ADR 0083). */
export class Migration20261209000000Admins extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "users" add column "is_admin" boolean not null default false;');
  }
}

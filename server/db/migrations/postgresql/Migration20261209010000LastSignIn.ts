import { Migration } from '@mikro-orm/migrations';

/** When each user last signed in, for the admin console's list of accounts (ADR 0083). */
export class Migration20261209010000LastSignIn extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "users" add column "last_sign_in_at" timestamptz null;');
  }
}

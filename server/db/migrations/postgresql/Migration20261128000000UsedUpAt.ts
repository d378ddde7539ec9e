import { Migration } from '@mikro-orm/migrations';

/** When a limited link gave its last download: the sweep keeps it for that download's resume grant (ADR 0014). */
export class Migration20261128000000UsedUpAt extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "files" add column "used_up_at" timestamptz null;');
  }
}

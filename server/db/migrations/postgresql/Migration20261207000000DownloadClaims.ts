import { Migration } from '@mikro-orm/migrations';

/** When a limited link's download was last counted: a used-up link waits for its claims to run out (ADR 0056). */
export class Migration20261207000000DownloadClaims extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "files" add column "last_download_at" timestamptz null;');
  }
}

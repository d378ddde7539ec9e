import { Migration } from '@mikro-orm/migrations';

/** Invitations to make an account, `/invite/<code>` (ADR 0086). */
export class Migration20261210000000Invitations extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table `invitations` (`id` text not null, `code_hash` text not null, `created_by` text null, ' +
        '`created_at` datetime not null, `expires_at` datetime not null, `max_uses` integer not null, ' +
        '`uses` integer not null default 0, `has_own_quota` integer not null default false, `quota_bytes` integer null, ' +
        '`is_admin` integer not null default false, `revoked_at` datetime null, primary key (`id`));',
    );
    this.addSql('create unique index `invitations_code_hash_unique` on `invitations` (`code_hash`);');
  }
}

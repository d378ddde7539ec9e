import { Migration } from '@mikro-orm/migrations';

/** Disabled users, per-user quotas and the bytes uploads in progress hold (ADR 0018). */
export class Migration20261126000000AccountsAndQuotas extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table `users` add column `disabled_at` datetime null;');
    this.addSql('alter table `users` add column `has_own_quota` integer not null default false;');
    this.addSql('alter table `users` add column `quota_bytes` integer null;');
    this.addSql(
      'create table `upload_reservations` (`id` text not null, `user_id` text not null, `bytes` integer not null, `updated_at` datetime not null, ' +
        'primary key (`id`), foreign key (`user_id`) references `users` (`id`) on delete cascade);',
    );
    this.addSql('create index `upload_reservations_user_id_index` on `upload_reservations` (`user_id`);');
  }
}

import { Migration } from '@mikro-orm/migrations';

/** Resumable (tus) uploads under way (ADR 0019). */
export class Migration20261127000000ResumableUploads extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table `resumable_uploads` (`id` text not null, `user_id` text not null, `file_id` text not null, `stored_name` text not null, ' +
        '`original_name` text not null, `mime_type` text not null, `length` integer not null, `received_bytes` integer not null, ' +
        '`content_state` text null, `share_settings` text null, `created_at` datetime not null, `expires_at` datetime not null, ' +
        '`finished_at` datetime null, `lock_token` text null, `lock_expires_at` datetime null, `release_requested` integer not null default false, ' +
        'primary key (`id`), foreign key (`user_id`) references `users` (`id`) on delete cascade);',
    );
    this.addSql('create index `resumable_uploads_user_id_index` on `resumable_uploads` (`user_id`);');
    this.addSql('create index `resumable_uploads_expires_at_index` on `resumable_uploads` (`expires_at`);');
  }
}

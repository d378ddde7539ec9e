import { Migration } from '@mikro-orm/migrations';

/**
 * File requests (ADR 0048): links through which guests send files into a user's space, the
 * uploads under way into them, and each received file's request, guest name and note.
 */
export class Migration20261202000000FileRequests extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table `file_requests` (`id` text not null, `user_id` text not null, `title` text not null, `message` text not null, `created_at` datetime not null, `expires_at` datetime null, `max_files` integer null, `max_bytes` integer null, `password_hash` text null, `require_name` integer not null default false, `closed_at` datetime null, `seen_at` datetime null, constraint `file_requests_user_id_foreign` foreign key(`user_id`) references `users`(`id`) on delete cascade on update no action, primary key (`id`));',
    );
    this.addSql('create index `file_requests_user_id_created_at_index` on `file_requests` (`user_id`, `created_at`);');
    this.addSql(
      'create table `file_request_uploads` (`id` text not null, `request_id` text not null, `file_id` text not null, `bytes` integer not null, `updated_at` datetime not null, constraint `file_request_uploads_request_id_foreign` foreign key(`request_id`) references `file_requests`(`id`) on delete cascade on update no action, primary key (`id`));',
    );
    this.addSql('create index `file_request_uploads_request_id_index` on `file_request_uploads` (`request_id`);');
    this.addSql('alter table `files` add column `request_id` text null;');
    this.addSql('alter table `files` add column `guest_name` text null;');
    this.addSql('alter table `files` add column `guest_note` text null;');
    this.addSql('create index `files_request_id_index` on `files` (`request_id`);');
  }
}

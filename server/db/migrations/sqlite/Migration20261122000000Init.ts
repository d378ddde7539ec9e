import { Migration } from '@mikro-orm/migrations';

/** Users, their files and their sessions. A user's files and sessions go with the user. */
export class Migration20261122000000Init extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table `users` (`id` text not null, `username` text not null, `username_key` text not null, ' +
        '`password_hash` text not null, `created_at` datetime not null, primary key (`id`));',
    );
    this.addSql('create unique index `users_username_key_unique` on `users` (`username_key`);');

    this.addSql(
      'create table `files` (`id` text not null, `user_id` text not null, `original_name` text not null, ' +
        '`mime_type` text not null, `size` integer not null, `stored_name` text not null, `created_at` datetime not null, ' +
        'primary key (`id`), foreign key (`user_id`) references `users` (`id`) on delete cascade);',
    );
    this.addSql('create index `files_user_id_created_at_index` on `files` (`user_id`, `created_at`);');
    this.addSql('create unique index `files_stored_name_unique` on `files` (`stored_name`);');

    this.addSql(
      'create table `sessions` (`id` text not null, `user_id` text not null, `expires_at` datetime not null, ' +
        '`created_at` datetime not null, primary key (`id`), ' +
        'foreign key (`user_id`) references `users` (`id`) on delete cascade);',
    );
    this.addSql('create index `sessions_user_id_index` on `sessions` (`user_id`);');
  }
}

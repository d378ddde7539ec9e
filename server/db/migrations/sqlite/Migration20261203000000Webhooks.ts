import { Migration } from '@mikro-orm/migrations';

/** The time of the statement in milliseconds, as the service keeps dates on SQLite. */
const NOW_MS = "cast(round((julianday('now') - 2440587.5) * 86400000) as integer)";

/**
 * Rows of the outbox for the endpoints of the file's owner that take `type` (an SQL expression
 * over `k`), with `data` as JSON; `key` makes a second one for the same file and endpoint a no-op.
 */
const queue = (row: 'new' | 'old', data: string, key = 'null') =>
  'insert or ignore into `webhook_deliveries` (`id`, `endpoint_id`, `type`, `data`, `event_key`, `created_at`, ' +
  '`status`, `attempts`, `next_attempt_at`) ' +
  `select lower(hex(randomblob(16))), \`e\`.\`id\`, \`k\`.\`type\`, ${data}, ${key}, ${NOW_MS}, 'pending', 0, ${NOW_MS} ` +
  'from `webhook_endpoints` `e` join (select TYPE as `type`) `k` ' +
  `on \`e\`.\`events\` like '%,' || \`k\`.\`type\` || ',%' where \`e\`.\`user_id\` = ${row}.\`user_id\`;`;

const fileData = (row: 'new' | 'old', extra = '') =>
  `json_object('fileId', ${row}.\`id\`, 'name', ${row}.\`original_name\`, 'size', ${row}.\`size\`, ` +
  `'mimeType', ${row}.\`mime_type\`${extra})`;

const hasEndpoints = (row: 'new' | 'old') =>
  `exists (select 1 from \`webhook_endpoints\` where \`user_id\` = ${row}.\`user_id\`)`;

/** Whether the link of the removed file had expired or used up its downloads. */
const GONE = `((old.\`expires_at\` is not null and old.\`expires_at\` <= ${NOW_MS}) or (old.\`max_downloads\` is not null and old.\`downloads\` >= old.\`max_downloads\`))`;

/**
 * Webhooks (ADR 0050): endpoints and the outbox of their deliveries. The outbox is written by
 * triggers on `files`, in the transaction of the insert, the download count or the delete: no
 * change is committed without its events, whichever code path made it. A user with no endpoint
 * costs one probe of an empty index per change.
 */
export class Migration20261203000000Webhooks extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table `webhook_endpoints` (`id` text not null, `user_id` text not null, `url` text not null, ' +
        '`events` text not null, `secret` text not null, `created_at` datetime not null, ' +
        'constraint `webhook_endpoints_user_id_foreign` foreign key(`user_id`) references `users`(`id`) on delete cascade on update no action, ' +
        'primary key (`id`));',
    );
    this.addSql('create index `webhook_endpoints_user_id_index` on `webhook_endpoints` (`user_id`);');
    this.addSql(
      'create table `webhook_deliveries` (`id` text not null, `endpoint_id` text not null, `type` text not null, ' +
        '`data` text not null, `event_key` text null, `created_at` datetime not null, `status` text not null, ' +
        '`attempts` integer not null default 0, `next_attempt_at` datetime not null, `lease_until` datetime null, ' +
        '`lease_token` text null, `last_status_code` integer null, `last_error` text null, `delivered_at` datetime null, ' +
        'constraint `webhook_deliveries_endpoint_id_foreign` foreign key(`endpoint_id`) references `webhook_endpoints`(`id`) on delete cascade on update no action, ' +
        'primary key (`id`));',
    );
    this.addSql(
      'create index `webhook_deliveries_status_next_attempt_at_index` on `webhook_deliveries` (`status`, `next_attempt_at`);',
    );
    this.addSql(
      'create index `webhook_deliveries_endpoint_id_created_at_index` on `webhook_deliveries` (`endpoint_id`, `created_at`);',
    );
    this.addSql(
      'create unique index `webhook_deliveries_endpoint_id_event_key_unique` on `webhook_deliveries` (`endpoint_id`, `event_key`);',
    );
    this.addSql(
      `create trigger \`webhook_file_uploaded\` after insert on \`files\` for each row when ${hasEndpoints('new')} begin ` +
        queue('new', fileData('new')).replace('TYPE', "'file.uploaded'") +
        ' end;',
    );
    this.addSql(
      'create trigger `webhook_file_downloaded` after update of `downloads` on `files` for each row ' +
        `when new.\`downloads\` > old.\`downloads\` and ${hasEndpoints('new')} begin ` +
        queue(
          'new',
          fileData(
            'new',
            ", 'first', json(case when old.`downloads` = 0 then 'true' else 'false' end), " +
              "'count', new.`downloads` - old.`downloads`, 'downloads', new.`downloads`",
          ),
        ).replace('TYPE', "'file.downloaded'") +
        ' end;',
    );
    // A file removed with its user (the account deleted) tells nobody: the endpoints go too.
    this.addSql(
      `create trigger \`webhook_file_deleted\` after delete on \`files\` for each row when ${hasEndpoints('old')} ` +
        'and exists (select 1 from `users` where `id` = old.`user_id`) begin ' +
        queue('old', fileData('old'), `case when ${GONE} then 'file.expired:' || old.\`id\` else null end`).replace(
          'TYPE',
          `case when ${GONE} then 'file.expired' else 'file.deleted' end`,
        ) +
        ' end;',
    );
  }
}

import { Migration } from '@mikro-orm/migrations';

/** The time of the statement in milliseconds, as the service keeps dates on SQLite. */
const NOW_MS = "cast(round((julianday('now') - 2440587.5) * 86400000) as integer)";

/**
 * `request.received` webhooks (ADR 0050): a file that arrives through a file request (ADR 0048)
 * queues the event for its owner's endpoints that take it, by a trigger on the file's insert, in
 * its transaction, as the other file events are.
 */
export class Migration20261204000000RequestReceivedEvents extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create trigger `webhook_request_received` after insert on `files` for each row ' +
        'when new.`request_id` is not null and exists (select 1 from `webhook_endpoints` where `user_id` = new.`user_id`) begin ' +
        'insert or ignore into `webhook_deliveries` (`id`, `endpoint_id`, `type`, `data`, `event_key`, `created_at`, ' +
        '`status`, `attempts`, `next_attempt_at`) ' +
        `select lower(hex(randomblob(16))), \`e\`.\`id\`, 'request.received', ` +
        "json_object('requestId', new.`request_id`, 'fileId', new.`id`, 'name', new.`original_name`, " +
        "'size', new.`size`, 'mimeType', new.`mime_type`, 'guestName', new.`guest_name`, 'guestNote', new.`guest_note`), " +
        `null, ${NOW_MS}, 'pending', 0, ${NOW_MS} ` +
        "from `webhook_endpoints` `e` where `e`.`user_id` = new.`user_id` and `e`.`events` like '%,request.received,%'; end;",
    );
  }
}

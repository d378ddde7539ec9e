import { Migration } from '@mikro-orm/migrations';

/**
 * The deliverer reads the oldest due delivery of each endpoint (ADR 0057): one range of this index
 * per endpoint, however long another endpoint's backlog. The index on (status, next_attempt_at),
 * which read what is due across all endpoints in one order, has no reader left.
 */
export class Migration20261207000000WebhookDueIndex extends Migration {
  override async up(): Promise<void> {
    this.addSql('drop index `webhook_deliveries_status_next_attempt_at_index`;');
    this.addSql(
      'create index `webhook_deliveries_endpoint_id_status_next_attempt_at_index` on `webhook_deliveries` (`endpoint_id`, `status`, `next_attempt_at`);',
    );
  }
}

import { Migration } from '@mikro-orm/migrations';

/** The activity log: security-relevant events, appended (ADR 0087). */
export class Migration20261211000000ActivityEvents extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table `activity_events` (`id` text not null, `at` datetime not null, `actor_kind` text not null, ' +
        '`actor_id` text null, `actor_name` text null, `address` text null, `user_agent` text null, ' +
        '`action` text not null, `target_kind` text null, `target_id` text null, `target_name` text null, ' +
        '`outcome` text not null, `detail` text null, primary key (`id`));',
    );
    this.addSql('create index `activity_events_at_index` on `activity_events` (`at`);');
    this.addSql('create index `activity_events_actor_id_at_index` on `activity_events` (`actor_id`, `at`);');
  }
}

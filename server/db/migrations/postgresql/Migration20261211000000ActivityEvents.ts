import { Migration } from '@mikro-orm/migrations';

/** The activity log: security-relevant events, appended (ADR 0087). */
export class Migration20261211000000ActivityEvents extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table "activity_events" ("id" varchar(255) not null, "at" timestamptz not null, ' +
        '"actor_kind" varchar(255) not null, "actor_id" varchar(255) null, "actor_name" varchar(255) null, ' +
        '"address" varchar(255) null, "user_agent" varchar(255) null, "action" varchar(255) not null, ' +
        '"target_kind" varchar(255) null, "target_id" varchar(255) null, "target_name" varchar(255) null, ' +
        '"outcome" varchar(255) not null, "detail" varchar(255) null, constraint "activity_events_pkey" primary key ("id"));',
    );
    this.addSql('create index "activity_events_at_index" on "activity_events" ("at");');
    this.addSql('create index "activity_events_actor_id_at_index" on "activity_events" ("actor_id", "at");');
  }
}

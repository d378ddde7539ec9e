import { Migration } from '@mikro-orm/migrations';

/**
 * The outbox rows of a change of `files`, for the endpoints of the file's owner that take its
 * type: in the transaction of the change itself (ADR 0050). A user with no endpoint costs one
 * probe of an empty index. A file removed with its user (the account deleted) tells nobody.
 */
const FILE_EVENT_FUNCTION = `create function "webhook_file_event"() returns trigger language plpgsql as $$
declare
  f record;
  kind text;
  payload json;
  key text := null;
begin
  if tg_op = 'DELETE' then f := old; else f := new; end if;
  if not exists (select 1 from "webhook_endpoints" where "user_id" = f."user_id") then return null; end if;
  if tg_op = 'INSERT' then
    kind := 'file.uploaded';
    payload := json_build_object('fileId', f."id", 'name', f."original_name", 'size', f."size", 'mimeType', f."mime_type");
  elsif tg_op = 'UPDATE' then
    if new."downloads" <= old."downloads" then return null; end if;
    kind := 'file.downloaded';
    payload := json_build_object('fileId', f."id", 'name', f."original_name", 'size', f."size", 'mimeType', f."mime_type",
      'first', old."downloads" = 0, 'count', new."downloads" - old."downloads", 'downloads', new."downloads");
  else
    if not exists (select 1 from "users" where "id" = old."user_id") then return null; end if;
    payload := json_build_object('fileId', f."id", 'name', f."original_name", 'size', f."size", 'mimeType', f."mime_type");
    if (old."expires_at" is not null and old."expires_at" <= now())
      or (old."max_downloads" is not null and old."downloads" >= old."max_downloads") then
      kind := 'file.expired';
      key := 'file.expired:' || old."id";
    else
      kind := 'file.deleted';
    end if;
  end if;
  insert into "webhook_deliveries" ("id", "endpoint_id", "type", "data", "event_key", "created_at", "status", "attempts", "next_attempt_at")
    select replace(gen_random_uuid()::text, '-', ''), "e"."id", kind, payload::text, key, now(), 'pending', 0, now()
    from "webhook_endpoints" "e" where "e"."user_id" = f."user_id" and "e"."events" like '%,' || kind || ',%'
    on conflict do nothing;
  return null;
end
$$;`;

/** Webhooks (ADR 0050): endpoints, the outbox of their deliveries, and the triggers that fill it. */
export class Migration20261203000000Webhooks extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table "webhook_endpoints" ("id" varchar(255) not null, "user_id" varchar(255) not null, "url" text not null, ' +
        '"events" text not null, "secret" text not null, "created_at" timestamptz not null, ' +
        'constraint "webhook_endpoints_pkey" primary key ("id"));',
    );
    this.addSql('create index "webhook_endpoints_user_id_index" on "webhook_endpoints" ("user_id");');
    this.addSql(
      'create table "webhook_deliveries" ("id" varchar(255) not null, "endpoint_id" varchar(255) not null, ' +
        '"type" varchar(255) not null, "data" text not null, "event_key" varchar(255) null, "created_at" timestamptz not null, ' +
        '"status" varchar(255) not null, "attempts" int not null default 0, "next_attempt_at" timestamptz not null, ' +
        '"lease_until" timestamptz null, "lease_token" varchar(255) null, "last_status_code" int null, "last_error" text null, ' +
        '"delivered_at" timestamptz null, constraint "webhook_deliveries_pkey" primary key ("id"));',
    );
    this.addSql(
      'create index "webhook_deliveries_status_next_attempt_at_index" on "webhook_deliveries" ("status", "next_attempt_at");',
    );
    this.addSql(
      'create index "webhook_deliveries_endpoint_id_created_at_index" on "webhook_deliveries" ("endpoint_id", "created_at");',
    );
    this.addSql(
      'alter table "webhook_deliveries" add constraint "webhook_deliveries_endpoint_id_event_key_unique" unique ("endpoint_id", "event_key");',
    );
    this.addSql(
      'alter table "webhook_endpoints" add constraint "webhook_endpoints_user_id_foreign" foreign key ("user_id") ' +
        'references "users" ("id") on update no action on delete cascade;',
    );
    this.addSql(
      'alter table "webhook_deliveries" add constraint "webhook_deliveries_endpoint_id_foreign" foreign key ("endpoint_id") ' +
        'references "webhook_endpoints" ("id") on update no action on delete cascade;',
    );
    this.addSql(FILE_EVENT_FUNCTION);
    this.addSql(
      'create trigger "webhook_file_uploaded" after insert on "files" for each row execute function "webhook_file_event"();',
    );
    this.addSql(
      'create trigger "webhook_file_downloaded" after update of "downloads" on "files" for each row execute function "webhook_file_event"();',
    );
    this.addSql(
      'create trigger "webhook_file_deleted" after delete on "files" for each row execute function "webhook_file_event"();',
    );
  }
}

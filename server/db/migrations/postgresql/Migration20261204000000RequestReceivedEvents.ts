import { Migration } from '@mikro-orm/migrations';

/** The outbox rows of a file that arrived through a file request, for its owner's endpoints that take them. */
const REQUEST_RECEIVED_FUNCTION = `create function "webhook_request_received"() returns trigger language plpgsql as $$
begin
  insert into "webhook_deliveries" ("id", "endpoint_id", "type", "data", "event_key", "created_at", "status", "attempts", "next_attempt_at")
    select replace(gen_random_uuid()::text, '-', ''), "e"."id", 'request.received',
      json_build_object('requestId', new."request_id", 'fileId', new."id", 'name', new."original_name", 'size', new."size",
        'mimeType', new."mime_type", 'guestName', new."guest_name", 'guestNote', new."guest_note")::text,
      null, now(), 'pending', 0, now()
    from "webhook_endpoints" "e" where "e"."user_id" = new."user_id" and "e"."events" like '%,request.received,%'
    on conflict do nothing;
  return null;
end
$$;`;

/**
 * `request.received` webhooks (ADR 0050): a file that arrives through a file request (ADR 0048)
 * queues the event for its owner's endpoints that take it, by a trigger on the file's insert, in
 * its transaction, as the other file events are.
 */
export class Migration20261204000000RequestReceivedEvents extends Migration {
  override async up(): Promise<void> {
    this.addSql(REQUEST_RECEIVED_FUNCTION);
    this.addSql(
      'create trigger "webhook_request_received" after insert on "files" for each row ' +
        'when (new."request_id" is not null) execute function "webhook_request_received"();',
    );
  }
}

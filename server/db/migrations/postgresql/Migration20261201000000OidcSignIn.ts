import { Migration } from '@mikro-orm/migrations';

/** Sign-in with OpenID Connect (ADR 0044): the identity linked to an account, and how each session began. */
export class Migration20261201000000OidcSignIn extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "users" add column "oidc_subject" varchar(255) null;');
    this.addSql('alter table "users" add constraint "users_oidc_subject_unique" unique ("oidc_subject");');
    this.addSql('alter table "sessions" add column "sign_in_method" varchar(255) null;');
  }
}

// Migrations per dialect (ADR 0011): SQLite keeps the history existing installs have run;
// PostgreSQL starts from one migration that creates the same schema. Each later change is
// written once for each dialect, and tests/db/schema.test.ts checks that both end where the
// entities say.
import { Migration20261123100000Init as PostgresInit } from './postgresql/Migration20261123100000Init';
import { Migration20261124000000ShareControls as PostgresShareControls } from './postgresql/Migration20261124000000ShareControls';
import { Migration20261124100000ApiTokens as PostgresApiTokens } from './postgresql/Migration20261124100000ApiTokens';
import { Migration20261125000000SessionDetails as PostgresSessionDetails } from './postgresql/Migration20261125000000SessionDetails';
import { Migration20261126000000AccountsAndQuotas as PostgresAccountsAndQuotas } from './postgresql/Migration20261126000000AccountsAndQuotas';
import { Migration20261127000000ResumableUploads as PostgresResumableUploads } from './postgresql/Migration20261127000000ResumableUploads';
import { Migration20261128120000UploadLiveness as PostgresUploadLiveness } from './postgresql/Migration20261128120000UploadLiveness';
import { Migration20261129000000Collections as PostgresCollections } from './postgresql/Migration20261129000000Collections';
import { Migration20261129100000UploadsJoinCollections as PostgresUploadsJoinCollections } from './postgresql/Migration20261129100000UploadsJoinCollections';
import { Migration20261130000000TwoFactor as PostgresTwoFactor } from './postgresql/Migration20261130000000TwoFactor';
import { Migration20261201000000OidcSignIn as PostgresOidcSignIn } from './postgresql/Migration20261201000000OidcSignIn';
import { Migration20261201100000FileListView as PostgresFileListView } from './postgresql/Migration20261201100000FileListView';
import { Migration20261202000000FileRequests as PostgresFileRequests } from './postgresql/Migration20261202000000FileRequests';
import { Migration20261203000000Webhooks as PostgresWebhooks } from './postgresql/Migration20261203000000Webhooks';
import { Migration20261204000000RequestReceivedEvents as PostgresRequestReceivedEvents } from './postgresql/Migration20261204000000RequestReceivedEvents';
import { Migration20261205000000FileNameIndex as PostgresFileNameIndex } from './postgresql/Migration20261205000000FileNameIndex';
import { Migration20261206000000GuestResumableUploads as PostgresGuestResumableUploads } from './postgresql/Migration20261206000000GuestResumableUploads';
import { Migration20261207000000WebhookDueIndex as PostgresWebhookDueIndex } from './postgresql/Migration20261207000000WebhookDueIndex';
import { Migration20261207005800WrongCodeLockOuts as PostgresWrongCodeLockOuts } from './postgresql/Migration20261207005800WrongCodeLockOuts';
import { Migration20261207000000DownloadClaims as PostgresDownloadClaims } from './postgresql/Migration20261207000000DownloadClaims';
import { Migration20261207120000CollectionFilesVersion as PostgresCollectionFilesVersion } from './postgresql/Migration20261207120000CollectionFilesVersion';
import { Migration20261208000000FileViews as PostgresFileViews } from './postgresql/Migration20261208000000FileViews';
import { Migration20261209000000Admins as PostgresAdmins } from './postgresql/Migration20261209000000Admins';
import { Migration20261209010000LastSignIn as PostgresLastSignIn } from './postgresql/Migration20261209010000LastSignIn';
import { Migration20261210000000Invitations as PostgresInvitations } from './postgresql/Migration20261210000000Invitations';
import { Migration20261211000000ActivityEvents as PostgresActivityEvents } from './postgresql/Migration20261211000000ActivityEvents';
import { Migration20261122000000Init } from './sqlite/Migration20261122000000Init';
import { Migration20261122010000LoginThrottle } from './sqlite/Migration20261122010000LoginThrottle';
import { Migration20261123000000ThrottleAndHealth } from './sqlite/Migration20261123000000ThrottleAndHealth';
import { Migration20261124000000ShareControls } from './sqlite/Migration20261124000000ShareControls';
import { Migration20261124100000ApiTokens } from './sqlite/Migration20261124100000ApiTokens';
import { Migration20261125000000SessionDetails } from './sqlite/Migration20261125000000SessionDetails';
import { Migration20261126000000AccountsAndQuotas } from './sqlite/Migration20261126000000AccountsAndQuotas';
import { Migration20261127000000ResumableUploads } from './sqlite/Migration20261127000000ResumableUploads';
import { Migration20261128120000UploadLiveness } from './sqlite/Migration20261128120000UploadLiveness';
import { Migration20261129000000Collections } from './sqlite/Migration20261129000000Collections';
import { Migration20261129100000UploadsJoinCollections } from './sqlite/Migration20261129100000UploadsJoinCollections';
import { Migration20261130000000TwoFactor } from './sqlite/Migration20261130000000TwoFactor';
import { Migration20261201000000OidcSignIn } from './sqlite/Migration20261201000000OidcSignIn';
import { Migration20261201100000FileListView } from './sqlite/Migration20261201100000FileListView';
import { Migration20261202000000FileRequests } from './sqlite/Migration20261202000000FileRequests';
import { Migration20261203000000Webhooks } from './sqlite/Migration20261203000000Webhooks';
import { Migration20261204000000RequestReceivedEvents } from './sqlite/Migration20261204000000RequestReceivedEvents';
import { Migration20261205000000FileNameIndex } from './sqlite/Migration20261205000000FileNameIndex';
import { Migration20261206000000GuestResumableUploads } from './sqlite/Migration20261206000000GuestResumableUploads';
import { Migration20261207000000WebhookDueIndex } from './sqlite/Migration20261207000000WebhookDueIndex';
import { Migration20261207005800WrongCodeLockOuts } from './sqlite/Migration20261207005800WrongCodeLockOuts';
import { Migration20261207000000DownloadClaims } from './sqlite/Migration20261207000000DownloadClaims';
import { Migration20261207120000CollectionFilesVersion } from './sqlite/Migration20261207120000CollectionFilesVersion';
import { Migration20261208000000FileViews } from './sqlite/Migration20261208000000FileViews';
import { Migration20261209000000Admins } from './sqlite/Migration20261209000000Admins';
import { Migration20261209010000LastSignIn } from './sqlite/Migration20261209010000LastSignIn';
import { Migration20261210000000Invitations } from './sqlite/Migration20261210000000Invitations';
import { Migration20261211000000ActivityEvents } from './sqlite/Migration20261211000000ActivityEvents';

/** Listed explicitly: migration folders cannot be globbed once bundled. */
const sqliteMigrations = [
  { name: 'Migration20261122000000Init', class: Migration20261122000000Init },
  { name: 'Migration20261122010000LoginThrottle', class: Migration20261122010000LoginThrottle },
  { name: 'Migration20261123000000ThrottleAndHealth', class: Migration20261123000000ThrottleAndHealth },
  { name: 'Migration20261124000000ShareControls', class: Migration20261124000000ShareControls },
  { name: 'Migration20261124100000ApiTokens', class: Migration20261124100000ApiTokens },
  { name: 'Migration20261125000000SessionDetails', class: Migration20261125000000SessionDetails },
  { name: 'Migration20261126000000AccountsAndQuotas', class: Migration20261126000000AccountsAndQuotas },
  { name: 'Migration20261127000000ResumableUploads', class: Migration20261127000000ResumableUploads },
  { name: 'Migration20261128120000UploadLiveness', class: Migration20261128120000UploadLiveness },
  { name: 'Migration20261129000000Collections', class: Migration20261129000000Collections },
  { name: 'Migration20261129100000UploadsJoinCollections', class: Migration20261129100000UploadsJoinCollections },
  { name: 'Migration20261130000000TwoFactor', class: Migration20261130000000TwoFactor },
  { name: 'Migration20261201000000OidcSignIn', class: Migration20261201000000OidcSignIn },
  { name: 'Migration20261201100000FileListView', class: Migration20261201100000FileListView },
  { name: 'Migration20261202000000FileRequests', class: Migration20261202000000FileRequests },
  { name: 'Migration20261203000000Webhooks', class: Migration20261203000000Webhooks },
  { name: 'Migration20261204000000RequestReceivedEvents', class: Migration20261204000000RequestReceivedEvents },
  { name: 'Migration20261205000000FileNameIndex', class: Migration20261205000000FileNameIndex },
  { name: 'Migration20261206000000GuestResumableUploads', class: Migration20261206000000GuestResumableUploads },
  { name: 'Migration20261207000000WebhookDueIndex', class: Migration20261207000000WebhookDueIndex },
  { name: 'Migration20261207005800WrongCodeLockOuts', class: Migration20261207005800WrongCodeLockOuts },
  { name: 'Migration20261207000000DownloadClaims', class: Migration20261207000000DownloadClaims },
  { name: 'Migration20261207120000CollectionFilesVersion', class: Migration20261207120000CollectionFilesVersion },
  { name: 'Migration20261208000000FileViews', class: Migration20261208000000FileViews },
  { name: 'Migration20261209000000Admins', class: Migration20261209000000Admins },
  { name: 'Migration20261209010000LastSignIn', class: Migration20261209010000LastSignIn },
  { name: 'Migration20261210000000Invitations', class: Migration20261210000000Invitations },
  { name: 'Migration20261211000000ActivityEvents', class: Migration20261211000000ActivityEvents },
];

const postgresqlMigrations = [
  { name: 'Migration20261123100000Init', class: PostgresInit },
  { name: 'Migration20261124000000ShareControls', class: PostgresShareControls },
  { name: 'Migration20261124100000ApiTokens', class: PostgresApiTokens },
  { name: 'Migration20261125000000SessionDetails', class: PostgresSessionDetails },
  { name: 'Migration20261126000000AccountsAndQuotas', class: PostgresAccountsAndQuotas },
  { name: 'Migration20261127000000ResumableUploads', class: PostgresResumableUploads },
  { name: 'Migration20261128120000UploadLiveness', class: PostgresUploadLiveness },
  { name: 'Migration20261129000000Collections', class: PostgresCollections },
  { name: 'Migration20261129100000UploadsJoinCollections', class: PostgresUploadsJoinCollections },
  { name: 'Migration20261130000000TwoFactor', class: PostgresTwoFactor },
  { name: 'Migration20261201000000OidcSignIn', class: PostgresOidcSignIn },
  { name: 'Migration20261201100000FileListView', class: PostgresFileListView },
  { name: 'Migration20261202000000FileRequests', class: PostgresFileRequests },
  { name: 'Migration20261203000000Webhooks', class: PostgresWebhooks },
  { name: 'Migration20261204000000RequestReceivedEvents', class: PostgresRequestReceivedEvents },
  { name: 'Migration20261205000000FileNameIndex', class: PostgresFileNameIndex },
  { name: 'Migration20261206000000GuestResumableUploads', class: PostgresGuestResumableUploads },
  { name: 'Migration20261207000000WebhookDueIndex', class: PostgresWebhookDueIndex },
  { name: 'Migration20261207005800WrongCodeLockOuts', class: PostgresWrongCodeLockOuts },
  { name: 'Migration20261207000000DownloadClaims', class: PostgresDownloadClaims },
  { name: 'Migration20261207120000CollectionFilesVersion', class: PostgresCollectionFilesVersion },
  { name: 'Migration20261208000000FileViews', class: PostgresFileViews },
  { name: 'Migration20261209000000Admins', class: PostgresAdmins },
  { name: 'Migration20261209010000LastSignIn', class: PostgresLastSignIn },
  { name: 'Migration20261210000000Invitations', class: PostgresInvitations },
  { name: 'Migration20261211000000ActivityEvents', class: PostgresActivityEvents },
];

export function migrationsFor(dialect: 'sqlite' | 'postgresql') {
  return dialect === 'sqlite' ? sqliteMigrations : postgresqlMigrations;
}

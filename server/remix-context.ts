// What Remix loaders and actions get as `context`. They reach the services through it rather
// than importing them, so the Remix bundle never carries a second copy of the server
// (entities, errors) and the UI stays a thin door over the same functions as the API.
import type { Response } from 'express';
import {
  clearedSessionCookie,
  collectionGrantCookies,
  readCollectionGrant,
  readCollectionGrants,
  readShareGrant,
  sessionCookie,
  shareGrantCookie,
} from './auth/cookie';
import {
  clearedCodeStepCookie,
  clearedSignInNoticeCookie,
  codeStepCookie,
  openCodeStep,
  openSignInNotice,
  signInNoticeCookie,
} from './auth/oidc-flow';
import { isAppError } from './utilities/errors';
import { receiveUploadForm } from './http/receive-upload-form';
import { previewKind } from './services/content-policy';
import * as apiTokens from './services/api-tokens';
import { openCollectionShare, unlockCollection } from './services/collection-access';
import { deleteCollection, getOwnCollection, listCollections } from './services/collections';
import * as files from './services/files';
import {
  countNewRequestFiles,
  createFileRequest,
  deleteFileRequest,
  getOwnFileRequest,
  listFileRequests,
  markFileRequestsSeen,
  setFileRequestClosed,
} from './services/file-requests/owner';
import { openFileRequest, unlockFileRequest } from './services/file-requests/guest-access';
import { readGuestGrant, receiveGuestFiles, requestGrantCookie } from './http/receive-request-upload';
import * as shares from './services/share-access';
import { colourText, renderMarkdown } from './services/text-previews';
import { expiryChoices } from './services/share-settings';
import { sharexConfigFor } from './services/sharex';
import { SHARE_SETTING_FIELDS } from './schemas';
import * as sessions from './services/sessions';
import { codeStepUsername, finishWithCode, SignInStepFinishedError } from './services/oidc-sign-in';
import {
  beginTwoFactor,
  confirmTwoFactor,
  disableTwoFactor,
  getTwoFactorSetUp,
  TwoFactorRequiredError,
  twoFactorStatus,
} from './services/two-factor';
import { changeOwnPassword, isFileListView, myFileListView, setMyPreferences } from './services/users';
import { listMyFilesPage } from './services/my-files-page';
import { cancelResumableUpload, listMyUnfinishedUploads } from './services/resumable-uploads';
import { myStorageReport, myUploadAllowance } from './services/storage-usage';
import * as webhooks from './services/webhooks';
import * as adminAccounts from './services/admin-accounts';
import { settingsInForce, storageOverview } from './services/admin-storage';
import { isAdmin } from './services/admins';
import { ACTIVITY_ACTIONS } from './services/activity';
import { listActivityEvents, mySignIns } from './services/activity-log';
import {
  acceptInvitation,
  createInvitation,
  listInvitations,
  openInvitation,
  revokeInvitation,
  signUp,
} from './services/invitations';

export function loadContextFor(res: Response) {
  return {
    ctx: res.locals.ctx,
    sessionToken: res.locals.sessionToken,
    requestId: res.locals.requestId,
    cspNonce: res.locals.cspNonce,
    services: {
      files,
      /** My files: the user's view of it (ADR 0046), and its pages as the page shows them. */
      fileList: { myFileListView, setMyPreferences, isFileListView, listMyFilesPage },
      sessions,
      shares,
      /** A text preview's colours, made off the event loop (ADR 0054). */
      textPreviews: { colourText, renderMarkdown },
      collections: { openCollectionShare, unlockCollection, listCollections, getOwnCollection, deleteCollection },
      apiTokens,
      sharexConfigFor,
      shareSettings: { expiryChoices },
      previewKind,
      users: { changeOwnPassword },
      twoFactor: { twoFactorStatus, beginTwoFactor, getTwoFactorSetUp, confirmTwoFactor, disableTwoFactor },
      storage: { myStorageReport, myUploadAllowance },
      resumableUploads: { listMyUnfinishedUploads, cancelResumableUpload },
      fileRequests: {
        countNewRequestFiles,
        createFileRequest,
        deleteFileRequest,
        getOwnFileRequest,
        listFileRequests,
        markFileRequestsSeen,
        openFileRequest,
        setFileRequestClosed,
        unlockFileRequest,
      },
      oidcSignIn: { codeStepUsername, finishWithCode },
      webhooks,
      /** The admin console (ADR 0083): each refuses anyone but an admin as NOT_FOUND. */
      admin: { isAdmin, storageOverview, settingsInForce, ...adminAccounts },
      /** Invitations and sign-up (ADR 0086); making, listing and revoking are for admins only. */
      /** The activity log (ADR 0087): the admin's view, and a user's own sign-ins. */
      activity: { ACTIVITY_ACTIONS, listActivityEvents, mySignIns },
      invitations: { openInvitation, acceptInvitation, signUp, createInvitation, listInvitations, revokeInvitation },
    },
    http: {
      sessionCookie,
      clearedSessionCookie,
      shareGrantCookie,
      collectionGrantCookies,
      readShareGrant,
      readCollectionGrant,
      readCollectionGrants,
      receiveUploadForm,
      receiveGuestFiles,
      readGuestGrant,
      requestGrantCookie,
      isAppError,
      /** After the provider, a user whose two-factor code comes next (ADR 0044): the cookie's step. */
      openCodeStep,
      codeStepCookie,
      clearedCodeStepCookie,
      /** A right password whose login still needs a two-factor code (or got a wrong one). */
      isTwoFactorRequired: (error: unknown) => error instanceof TwoFactorRequiredError,
      /** The user whose password was right and whose code is missing; null for any other error. */
      codeStepUserOf: (error: unknown) => (error instanceof TwoFactorRequiredError ? error.userId : null),
      /** The code step's cookie belongs to a sign-in that has finished already (ADR 0058). */
      isSignInStepFinished: (error: unknown) => error instanceof SignInStepFinishedError,
      /** Wrong two-factor codes to tell of on the page after a sign-in, once (ADR 0058). */
      signInNoticeCookie,
      openSignInNotice,
      clearedSignInNoticeCookie,
      SHARE_SETTING_FIELDS,
    },
  };
}

export type RemixLoadContext = ReturnType<typeof loadContextFor>;

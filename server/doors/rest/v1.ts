// The JSON API, /api/v1 (docs/api.md). Each handler parses, calls a service, shapes JSON.
import express, { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { clearedSessionCookie, sessionCookie } from '../../auth/cookie';
import { AppError } from '../../errors';
import { carriesBearer, recogniseBearerToken, sendBearerRefusal } from '../../http/bearer';
import { receiveCollectionUpload, receiveUpload } from '../../http/receive-upload';
import { resumableUploads } from '../tus/resumable-uploads';
import { createApiToken, listApiTokens, revokeApiToken } from '../../services/api-tokens';
import {
  addToCollection,
  createCollection,
  deleteCollection,
  getOwnCollection,
  listCollections,
  removeFromCollection,
  updateCollection,
} from '../../services/collections';
import { deleteFile, getOwnFile, listFilesJson, listFilesPage, updateFile } from '../../services/files';
import {
  createFileRequest,
  deleteFileRequest,
  getOwnFileRequest,
  listFileRequests,
  setFileRequestClosed,
} from '../../services/file-requests/owner';
import { myStorageReport } from '../../services/storage-usage';
import { listSessions, login, logout, revokeAllSessions, revokeSession } from '../../services/sessions';
import { changeOwnPassword, myFileListView, setMyPreferences } from '../../services/users';
import {
  beginTwoFactor,
  confirmTwoFactor,
  disableTwoFactor,
  TwoFactorRequiredError,
  twoFactorStatus,
} from '../../services/two-factor';
import { sendJsonError } from '../../http/json-errors';
import { openApiDocument } from './openapi';
import {
  createWebhook,
  deleteWebhook,
  listWebhookDeliveries,
  listWebhooks,
  resendWebhookDelivery,
} from '../../services/webhooks';

/** Express 4 does not forward rejected promises: this does. */
const handler =
  (fn: (req: Request, res: Response) => Promise<void>): RequestHandler =>
  (req, res, next) =>
    fn(req, res).catch(next);

/** Services throw UNAUTHORIZED too; checking at the door first avoids reading a body for nothing. */
const requireSession: RequestHandler = (_req, res, next) => {
  if (!res.locals.ctx.user) return sendJsonError(res, new AppError('UNAUTHORIZED', 'Unauthorized'));
  next();
};

/** A JSON body of at most `limit`: anything but `Content-Type: application/json` is a 400. */
function jsonBody(limit: string): RequestHandler[] {
  return [
    express.json({ limit }),
    (req, res, next) => {
      if (req.is('application/json')) return next();
      sendJsonError(res, new AppError('BAD_REQUEST', 'Send a JSON object (Content-Type: application/json)'));
    },
  ];
}

/** A small JSON body: the PATCH of a file, a new token. */
const jsonObjectBody = jsonBody('16kb');

/** A collection's body may list thousands of files ({ id, path } each): room for ten thousand. */
const collectionBody = jsonBody('2mb');

/** `?name=true|false` (absent: false); anything else is a 400 naming the parameter. */
function parseFlag(value: unknown, name: string): boolean {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw new AppError('BAD_REQUEST', `${name} must be true or false`);
}

/**
 * A request with `Authorization: Bearer` is judged by its token alone (the session cookie was
 * not read): an unknown, revoked or expired token is a 401 at once, whatever the route.
 */
const tokenRecognition: RequestHandler = (req, res, next) => {
  if (!carriesBearer(req)) return next();
  recogniseBearerToken(res.locals.ctx, req).then(
    (refusal) => (refusal ? sendBearerRefusal(res, refusal) : next()),
    next,
  );
};

export function apiV1Router(): Router {
  const router = Router();
  // Logout always answers 200 {"ok":true} (docs/api.md), whatever else the request carries: it
  // comes before the token check, and revokes the session of the cookie it clears (read beside a
  // Bearer too).
  router.post(
    '/auth/logout',
    handler(async (_req, res) => {
      const ctx = res.locals.ctx;
      await logout(ctx, res.locals.sessionToken);
      res.append('Set-Cookie', clearedSessionCookie(ctx.config));
      res.status(200).json({ ok: true });
    }),
  );
  router.use(tokenRecognition);
  // Body parsers are scoped to the one route that takes a small body (never global: remix#3616).
  const loginBody = [express.json({ limit: '16kb' }), express.urlencoded({ extended: false, limit: '16kb' })];

  router.post(
    '/auth/login',
    ...loginBody,
    handler(async (req, res) => {
      const ctx = res.locals.ctx;
      const session = await login(ctx, req.body ?? {}).catch((error: unknown) => {
        // The password was right: the client is told to ask for a code (docs/api.md).
        if (error instanceof TwoFactorRequiredError)
          res.status(401).json({ error: error.message, twoFactorRequired: true });
        else throw error;
      });
      if (!session) return;
      res.append('Set-Cookie', sessionCookie(ctx.config, session.token, session.maxAgeSeconds));
      // Wrong two-factor codes tried since the last sign-in, told this once (ADR 0058, docs/api.md).
      res
        .status(200)
        .json(session.wrongCodes ? { user: session.user, wrongCodes: session.wrongCodes } : { user: session.user });
    }),
  );

  router.get(
    '/files',
    requireSession,
    handler(async (req, res) => {
      // Without `limit` the whole list, as the first version of the API answered; with it, one page and a cursor.
      // Either may be narrowed (`q`, `type`) and ordered (`sort`).
      const { limit, cursor, q, type, sort } = req.query;
      if (limit === undefined && cursor === undefined) {
        res
          .status(200)
          .type('json')
          .send(`{"files":${await listFilesJson(res.locals.ctx, { q, type, sort })}}`);
        return;
      }
      res.status(200).json(await listFilesPage(res.locals.ctx, { limit: limit ?? '100', cursor, q, type, sort }));
    }),
  );

  router.post(
    '/files',
    requireSession,
    handler(async (req, res) => {
      res.status(201).json(await receiveUpload(res.locals.ctx, req));
    }),
  );

  // Resumable uploads (tus 1.0, docs/api.md): OPTIONS (what the server supports) is open to anyone.
  const tus = resumableUploads();
  router.options('/uploads', tus);
  router.post('/uploads', requireSession, tus);
  router.head('/uploads/:id', requireSession, tus);
  router.patch('/uploads/:id', requireSession, tus);
  router.delete('/uploads/:id', requireSession, tus);

  router.get(
    '/files/:id',
    requireSession,
    handler(async (req, res) => {
      res.status(200).json({ file: await getOwnFile(res.locals.ctx, req.params.id) });
    }),
  );

  router.patch(
    '/files/:id',
    requireSession,
    ...jsonObjectBody,
    handler(async (req, res) => {
      // `originalName` renames the file; the other keys are its share settings.
      const file = await updateFile(res.locals.ctx, req.params.id, req.body);
      res.status(200).json({ file });
    }),
  );

  router.delete(
    '/files/:id',
    requireSession,
    handler(async (req, res) => {
      await deleteFile(res.locals.ctx, req.params.id);
      res.status(200).json({ ok: true });
    }),
  );

  // Collections: several of the caller's files behind one link (docs/api.md).
  router.get(
    '/collections',
    requireSession,
    handler(async (_req, res) => {
      res.status(200).json({ collections: await listCollections(res.locals.ctx) });
    }),
  );

  // JSON naming files already uploaded; or several files in one multipart body, each stored, then
  // one collection of them.
  router.post(
    '/collections',
    requireSession,
    (req, res, next) => {
      if (!req.is('multipart/form-data')) return next();
      receiveCollectionUpload(res.locals.ctx, req).then(
        (collection) => void res.status(201).location(collection.url).json({ collection }),
        next,
      );
    },
    ...collectionBody,
    handler(async (req, res) => {
      const collection = await createCollection(res.locals.ctx, req.body);
      res.status(201).location(collection.url).json({ collection });
    }),
  );

  router.get(
    '/collections/:id',
    requireSession,
    handler(async (req, res) => {
      res.status(200).json({ collection: await getOwnCollection(res.locals.ctx, req.params.id) });
    }),
  );

  router.patch(
    '/collections/:id',
    requireSession,
    ...collectionBody,
    handler(async (req, res) => {
      res.status(200).json({ collection: await updateCollection(res.locals.ctx, req.params.id, req.body) });
    }),
  );

  router.delete(
    '/collections/:id',
    requireSession,
    handler(async (req, res) => {
      const deleteFiles = parseFlag(req.query.deleteFiles, 'deleteFiles');
      const collection = await deleteCollection(res.locals.ctx, req.params.id, { deleteFiles });
      res.status(200).json({ ok: true, filesDeleted: deleteFiles ? collection.fileCount : 0 });
    }),
  );

  router.post(
    '/collections/:id/files',
    requireSession,
    ...collectionBody,
    handler(async (req, res) => {
      res.status(200).json({ collection: await addToCollection(res.locals.ctx, req.params.id, req.body) });
    }),
  );

  router.delete(
    '/collections/:id/files/:fileId',
    requireSession,
    handler(async (req, res) => {
      const collection = await removeFromCollection(res.locals.ctx, req.params.id, req.params.fileId);
      res.status(200).json({ collection });
    }),
  );

  // Webhooks (ADR 0050): the caller's endpoints and their deliveries; another's id is a 404.
  router.get(
    '/webhooks',
    requireSession,
    handler(async (_req, res) => {
      res.status(200).json({ webhooks: await listWebhooks(res.locals.ctx) });
    }),
  );

  router.post(
    '/webhooks',
    requireSession,
    ...jsonObjectBody,
    handler(async (req, res) => {
      res.status(201).json(await createWebhook(res.locals.ctx, req.body));
    }),
  );

  router.delete(
    '/webhooks/:id',
    requireSession,
    handler(async (req, res) => {
      await deleteWebhook(res.locals.ctx, req.params.id);
      res.status(200).json({ ok: true });
    }),
  );

  router.get(
    '/webhooks/:id/deliveries',
    requireSession,
    handler(async (req, res) => {
      res.status(200).json({ deliveries: await listWebhookDeliveries(res.locals.ctx, req.params.id) });
    }),
  );

  router.post(
    '/webhooks/:id/deliveries/:deliveryId/resend',
    requireSession,
    handler(async (req, res) => {
      const delivery = await resendWebhookDelivery(res.locals.ctx, req.params.id, req.params.deliveryId);
      res.status(202).json({ delivery });
    }),
  );

  // File requests (ADR 0048): links through which guests send files into the caller's space.
  router.get(
    '/requests',
    requireSession,
    handler(async (_req, res) => {
      res.status(200).json({ requests: await listFileRequests(res.locals.ctx) });
    }),
  );

  router.post(
    '/requests',
    requireSession,
    ...jsonObjectBody,
    handler(async (req, res) => {
      const request = await createFileRequest(res.locals.ctx, req.body);
      res.status(201).location(request.url).json({ request });
    }),
  );

  router.get(
    '/requests/:id',
    requireSession,
    handler(async (req, res) => {
      res.status(200).json(await getOwnFileRequest(res.locals.ctx, req.params.id));
    }),
  );

  router.patch(
    '/requests/:id',
    requireSession,
    ...jsonObjectBody,
    handler(async (req, res) => {
      const body = (req.body ?? {}) as { closed?: unknown };
      res.status(200).json({ request: await setFileRequestClosed(res.locals.ctx, req.params.id, body.closed) });
    }),
  );

  router.delete(
    '/requests/:id',
    requireSession,
    handler(async (req, res) => {
      await deleteFileRequest(res.locals.ctx, req.params.id);
      res.status(200).json({ ok: true });
    }),
  );

  // Personal access tokens: managed with a session only (the services refuse a token).
  router.get(
    '/tokens',
    requireSession,
    handler(async (_req, res) => {
      res.status(200).json({ tokens: await listApiTokens(res.locals.ctx) });
    }),
  );

  router.post(
    '/tokens',
    requireSession,
    ...jsonObjectBody,
    handler(async (req, res) => {
      res.status(201).json(await createApiToken(res.locals.ctx, req.body));
    }),
  );

  router.delete(
    '/tokens/:id',
    requireSession,
    handler(async (req, res) => {
      await revokeApiToken(res.locals.ctx, req.params.id);
      res.status(200).json({ ok: true });
    }),
  );

  router.get(
    '/me',
    requireSession,
    handler(async (_req, res) => {
      const ctx = res.locals.ctx;
      res.status(200).json({ ...(await myStorageReport(ctx)), fileListView: await myFileListView(ctx) });
    }),
  );

  // The account's preferences: how My files shows the files (ADR 0046).
  router.patch(
    '/me',
    requireSession,
    ...jsonObjectBody,
    handler(async (req, res) => {
      res.status(200).json(await setMyPreferences(res.locals.ctx, req.body));
    }),
  );

  // The account: its password and its sessions, with a session only like the tokens.
  router.post(
    '/me/password',
    requireSession,
    ...jsonObjectBody,
    handler(async (req, res) => {
      res.status(200).json({ ok: true, ...(await changeOwnPassword(res.locals.ctx, req.body)) });
    }),
  );

  // Two-factor codes (ADR 0043): begin (a secret), confirm with a first code (recovery codes,
  // shown once), turn off with a code. With a session only, like the password.
  router.get(
    '/me/2fa',
    requireSession,
    handler(async (_req, res) => {
      res.status(200).json(await twoFactorStatus(res.locals.ctx));
    }),
  );

  router.post(
    '/me/2fa',
    requireSession,
    handler(async (_req, res) => {
      res.status(200).json(await beginTwoFactor(res.locals.ctx));
    }),
  );

  router.post(
    '/me/2fa/confirm',
    requireSession,
    ...jsonObjectBody,
    handler(async (req, res) => {
      res.status(200).json(await confirmTwoFactor(res.locals.ctx, req.body));
    }),
  );

  router.delete(
    '/me/2fa',
    requireSession,
    ...jsonObjectBody,
    handler(async (req, res) => {
      await disableTwoFactor(res.locals.ctx, req.body);
      res.status(200).json({ ok: true });
    }),
  );

  router.get(
    '/sessions',
    requireSession,
    handler(async (_req, res) => {
      res.status(200).json({ sessions: await listSessions(res.locals.ctx) });
    }),
  );

  router.delete(
    '/sessions/:id',
    requireSession,
    handler(async (req, res) => {
      const ctx = res.locals.ctx;
      const { wasCurrent } = await revokeSession(ctx, req.params.id);
      if (wasCurrent) res.append('Set-Cookie', clearedSessionCookie(ctx.config));
      res.status(200).json({ ok: true });
    }),
  );

  router.delete(
    '/sessions',
    requireSession,
    handler(async (_req, res) => {
      const ctx = res.locals.ctx;
      const { revoked } = await revokeAllSessions(ctx);
      res.append('Set-Cookie', clearedSessionCookie(ctx.config));
      res.status(200).json({ ok: true, revoked });
    }),
  );

  router.get('/openapi.json', (_req, res) => {
    res.status(200).json(openApiDocument());
  });

  router.use((_req, res) => sendJsonError(res, new AppError('NOT_FOUND', 'Not found')));
  router.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (isBodyParserError(error)) {
      const tooLarge = error.type === 'entity.too.large';
      return sendJsonError(
        res,
        new AppError(
          tooLarge ? 'PAYLOAD_TOO_LARGE' : 'BAD_REQUEST',
          tooLarge ? 'Request body too large' : 'Malformed request body',
        ),
      );
    }
    // Express cannot decode a malformed %-escape in a path parameter: the client's fault, not a 500.
    if (error instanceof URIError) return sendJsonError(res, new AppError('BAD_REQUEST', 'Malformed URL'));
    sendJsonError(res, error, req);
  });
  return router;
}

/**
 * An error of express.json / express.urlencoded: an http-errors error with a 4xx status. Not all
 * carry a `type`: a body announced as gzip or deflate that does not inflate is zlib's own error,
 * given status 400 and `expose` by body-parser (an AppError has neither `expose` nor a settable status).
 */
function isBodyParserError(error: unknown): error is { type?: string; status: number } {
  if (typeof error !== 'object' || error === null || (error as { expose?: unknown }).expose !== true) return false;
  const status = (error as { status?: unknown }).status;
  return typeof status === 'number' && status >= 400 && status < 500;
}

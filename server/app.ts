// Builds the app: Express, with the fast paths of uploads and raw files ahead of it. Never
// listens (tests drive it on port 0, index.ts in production).
import type { RequestListener } from 'node:http';
import path from 'node:path';
import type { ServerBuild } from '@remix-run/node';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { OidcProvider } from './auth/oidc-client';
import type { AppDeps } from './context';
import { crossSiteGuard } from './http/cross-site-guard';
import { healthCheck } from './http/health';
import { lingerAfterEarlyAnswers } from './http/lingering-close';
import { answeringOutagesOnPages } from './doors/pages/page-outages';
import { remixPages } from './doors/pages/remix-pages';
import { SharePageCache, sharePagesFromCache } from './doors/pages/share-page-cache';
import { oidcCallback, oidcStart } from './doors/pages/oidc-sign-in';
import { collectionArchive } from './doors/raw/collection-archive';
import { rawFile } from './doors/raw/raw-file';
import { fileThumbnail } from './doors/raw/thumbnail';
import { withFastPaths } from './doors/fast-paths';
import { withMetrics } from './metrics';
import { requestStart } from './http/request-start';
import { sessionRecognition } from './http/session';
import { answerServerFault, sendStatusPage } from './http/status-page';
import { sendJsonError } from './http/json-errors';
import { apiV1Router } from './doors/rest/v1';
import { guestFilesAsJson } from './doors/rest/file-request-upload';
import { guestResumableUploads } from './doors/tus/resumable-uploads';
import { trpcMiddleware } from './doors/trpc/middleware';
import { AppError } from './utilities/errors';
import { loadContextFor } from './remix-context';
import { webManifest } from './http/web-manifest';

export interface CreateAppOptions extends AppDeps {
  /** The Remix server build; without it only the API and raw files are served. */
  build?: ServerBuild;
  /** Folder of the browser assets built by Remix (public/build). */
  assetsDir?: string;
  /** The OpenID Connect provider, discovered at start (ADR 0044); absent: sign-in with a provider is off. */
  oidc?: OidcProvider | null;
}

/** The request listener of the whole service. */
export function createApp(options: CreateAppOptions): RequestListener {
  // Counted outermost, so that the fast paths' answers are too (ADR 0049); as it is while metrics are off.
  return withMetrics(options, withFastPaths(options, createExpressApp(options)));
}

function createExpressApp(options: CreateAppOptions): Express {
  const { config, build } = options;
  const app = express();
  app.disable('x-powered-by');
  if (config.trustProxy !== undefined) app.set('trust proxy', config.trustProxy);

  // Every request gets the security headers, its id and its JSON log line, assets too; the fast
  // paths ahead of Express start the same way (request-start.ts).
  app.use(requestStart(options));
  // Fingerprinted browser assets: immutable, served before the session and the routes.
  if (build && options.assetsDir) {
    app.use('/build', express.static(options.assetsDir, { immutable: true, maxAge: '1y', index: false }));
    app.get('/manifest.webmanifest', webManifest(path.dirname(options.assetsDir), config.siteName));
    // The icons and the web app manifest beside it in public/: fixed names, not fingerprinted, so a
    // day's cache and then a revalidation by ETag. Only files: no index, no redirect, no dotfiles.
    app.use(
      express.static(path.dirname(options.assetsDir), {
        maxAge: '1d',
        index: false,
        redirect: false,
        dotfiles: 'ignore',
      }),
    );
  }
  // Browsers ask for it whatever the page says; we have none, and a 404 shows as an error in their console.
  app.get('/favicon.ico', (_req, res) => res.status(204).setHeader('Cache-Control', 'public, max-age=86400').end());
  app.get('/healthz', healthCheck(options));
  app.use(crossSiteGuard(config, refuseCrossSite));
  app.use(sessionRecognition());

  app.use('/api/v1', apiV1Router());
  if (options.oidc) {
    app.get('/auth/oidc/start', oidcStart(options.oidc));
    app.get('/auth/oidc/callback', oidcCallback(options.oidc));
  }
  app.use('/trpc', trpcMiddleware());
  app.get('/f/:id/raw', rawFile());
  app.all('/f/:id/raw', onlyGetAndHead);
  // The share page's own image, player or PDF: no download (ADR 0066).
  app.get('/f/:id/preview', rawFile('preview'));
  app.all('/f/:id/preview', onlyGetAndHead);
  app.get('/f/:id/thumbnail', fileThumbnail());
  app.all('/f/:id/thumbnail', onlyGetAndHead);
  app.get('/c/:id/archive', collectionArchive());
  app.all('/c/:id/archive', onlyGetAndHead);
  // A guest's files sent to a file request by a script asking for JSON; a browser's form goes to its page.
  app.post('/r/:id', guestFilesAsJson());
  // A guest's large files, as resumable uploads into the request (tus 1.0; docs/api.md).
  const guestTus = guestResumableUploads();
  app.options('/r/:id/uploads', guestTus);
  app.post('/r/:id/uploads', guestTus);
  app.head('/r/:id/uploads/:uploadId', guestTus);
  app.patch('/r/:id/uploads/:uploadId', guestTus);
  app.delete('/r/:id/uploads/:uploadId', guestTus);

  if (build) {
    const pages = answeringOutagesOnPages(build);
    // A visitor's share page, drawn once while its file says the same (ADR 0051).
    const sharePages = new SharePageCache();
    app.get('/f/:id', sharePagesFromCache(sharePages));
    app.all('*', lingerAfterEarlyAnswers(), remixPages(pages, loadContextFor, sharePages));
  } else {
    app.use((_req, res) => res.status(404).type('text/plain').send('Not found'));
  }

  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    // Express cannot decode a malformed %-escape in the path (`/f/%E0%A4%A`): the client's fault, not a 500.
    if (error instanceof URIError) {
      if (req.path.startsWith('/api/')) return sendJsonError(res, new AppError('BAD_REQUEST', 'Malformed URL'), req);
      return res.status(400).type('text/plain').send('Malformed URL');
    }
    // A fault before the API router (e.g. the database failing while the session is read) is
    // still answered the API's way: JSON {"error":…} (docs/api.md); the UI's /trpc likewise.
    if (req.path.startsWith('/api/') || req.path.startsWith('/trpc')) return sendJsonError(res, error, req);
    answerServerFault(res, error, req.path);
  });
  return app;
}

function refuseCrossSite(req: Request, res: Response): void {
  const error = new AppError('FORBIDDEN', 'Cross-site request refused');
  if (req.path.startsWith('/api/') || req.path.startsWith('/trpc')) {
    sendJsonError(res, error);
    return;
  }
  // Fixed text: nothing from the request is echoed.
  sendStatusPage(
    res,
    403,
    'Request refused',
    'This form was sent from another website, so it was not carried out. Nothing was changed.',
  );
}

/**
 * The raw link only serves content: another method is 405 with Allow (RFC 9110, 15.5.6), for
 * any id, rather than the not-found page of a path that does not exist.
 */
function onlyGetAndHead(req: Request, res: Response, next: NextFunction): void {
  // A GET or HEAD comes here when rawFile found no such file: the not-found page answers it.
  if (req.method === 'GET' || req.method === 'HEAD') {
    next();
    return;
  }
  res.setHeader('Allow', 'GET, HEAD');
  sendStatusPage(
    res,
    405,
    'Method not allowed',
    'This link only downloads a file: nothing can be sent to it, changed or deleted here.',
  );
}

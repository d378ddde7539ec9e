// The two requests an image host lives on are answered ahead of Express (ADR 0022): uploads to
// the API (upload-fast-path.ts) and, here, GET and HEAD of /f/<id>/raw. Express's own work per request (its prototypes set on req and res, the query
// parser, the router's walk through every middleware) was a third of a small download's CPU.
// The fast path does what those middleware do for this route, in the same functions: the
// security headers, the request's context and log line, the session cookie. Anything it does
// not serve itself goes on to Express, with that context already made: an unknown file (the
// not-found page), a gone or locked link (their pages), a password header (it is counted
// against the throttle, once), a query string (`?download`), any other spelling of the path.
// A middleware added in app.ts that must apply to raw downloads must be called here too.
import type { IncomingMessage, RequestListener } from 'node:http';
import type { Express } from 'express';
import proxyAddr from 'proxy-addr';
import type { AppDeps } from '../context';
import { serveRawFile } from './raw-file';
import { beginRequest, type ResponseWithLocals } from './request-context';
import { setSecurityHeaders } from './security-headers';
import { recogniseRequestSession } from './session';
import { answerServerFault } from './status-page';
import { isFastPathUpload, serveUploadFast } from './upload-fast-path';

/** Exactly a file id (fileIdSchema's alphabet and length) between /f/ and /raw. */
const RAW_FILE_PATH = /^\/f\/([A-Za-z0-9_-]{22})\/raw$/;

export function withFastPaths(deps: AppDeps, app: Express): RequestListener {
  // The client address as Express works it out (TRUST_PROXY), from the function it compiled.
  const trustProxy = app.get('trust proxy fn') as (address: string, hop: number) => boolean;
  return (req, res) => {
    if (isFastPathUpload(req)) {
      serveUploadFast(deps, req, res, proxyAddr(req, trustProxy)).catch((error: unknown) => answerServerFault(res, error, req.url as string));
      return;
    }
    const fileId = fastPathFileId(req);
    if (fileId === null) return app(req, res);
    serveFast(deps, req, res, fileId, proxyAddr(req, trustProxy)).then(
      (served) => {
        if (!served) app(req, res);
      },
      (error: unknown) => answerServerFault(res, error, req.url as string),
    );
  };
}

function fastPathFileId(req: IncomingMessage): string | null {
  if (req.method !== 'GET' && req.method !== 'HEAD') return null;
  if (req.headers['x-share-password'] !== undefined) return null;
  return RAW_FILE_PATH.exec(req.url ?? '')?.[1] ?? null;
}

/** True once the response is answered; false to leave it to Express (nothing sent yet). */
async function serveFast(deps: AppDeps, req: IncomingMessage, res: ResponseWithLocals, fileId: string, clientAddress: string): Promise<boolean> {
  setSecurityHeaders(res, deps.config);
  const ctx = beginRequest(deps, req, res, clientAddress);
  await recogniseRequestSession(ctx, req, res, req.url as string);
  const outcome = await serveRawFile(ctx, req, res, { fileId, asDownload: false });
  return outcome.kind === 'served';
}

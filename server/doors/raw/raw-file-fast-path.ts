// GET and HEAD of /f/<id>/raw, the request an image host lives on, answered ahead of Express
// (ADR 0022; ../fast-paths.ts chooses): Express's own work per request (its prototypes set on req
// and res, the query parser, the router's walk through every middleware) was a third of a small
// download's CPU.
// The fast path starts the request as Express does (startRequest: the security headers, the
// request's context and log line) and reads the session cookie as the session middleware does,
// in the same functions. Anything it does not serve itself goes on to Express, with that
// context already made (Express's start then skips it): an unknown file (the
// not-found page), a gone or locked link (their pages), each with what was learned of it, so
// that the Express route does not look the file up again; a password header (it is counted
// against the throttle, once), a query string (`?download`), any other spelling of the path.
import type { IncomingMessage } from 'node:http';
import type { AppDeps } from '../../context';
import { passOnRefusal, serveRawFile } from './raw-file';
import type { ResponseWithLocals } from '../../http/request-context';
import { startRequest } from '../../http/request-start';
import { recogniseRequestSession } from '../../http/session';

/** Exactly a file id (fileIdSchema's alphabet and length) between /f/ and /raw. */
const RAW_FILE_PATH = /^\/f\/([A-Za-z0-9_-]{22})\/raw$/;

/** The file id of a raw link the fast path answers; null for any other request. */
export function rawFastPathFileId(req: IncomingMessage): string | null {
  if (req.method !== 'GET' && req.method !== 'HEAD') return null;
  if (req.headers['x-share-password'] !== undefined) return null;
  return RAW_FILE_PATH.exec(req.url ?? '')?.[1] ?? null;
}

/** True once the response is answered; false to leave it to Express (nothing sent yet). */
export async function serveRawFileFast(
  deps: AppDeps,
  req: IncomingMessage,
  res: ResponseWithLocals,
  fileId: string,
  clientAddress: string,
): Promise<boolean> {
  const ctx = startRequest(deps, req, res, clientAddress);
  await recogniseRequestSession(ctx, req, res, req.url as string);
  const outcome = await serveRawFile(ctx, req, res, { fileId, use: 'download', asDownload: false });
  if (outcome.kind === 'served') return true;
  passOnRefusal(req, outcome);
  return false;
}

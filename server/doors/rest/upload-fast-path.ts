// `POST /api/v1/files`, the request a screenshot tool or script sends for every file, answered
// ahead of Express as the raw link is (ADR 0022): Express's own work (its prototypes set on req
// and res, the router's walk through every middleware) was about a tenth of a 4 KiB upload's
// CPU. The fast path calls the functions those middleware and the route call, in their order:
// startRequest (the security headers, the request's context and log line, as every request
// gets), the API token or the session cookie, the 401 without a user, then `receiveUpload` and
// its JSON. It takes only what the cross-site guard would let through unread: an upload with an API token, whatever its Origin
// (judged by the token alone, its cookie unused), or one with neither an Origin header nor a
// browser's cross-site mark. Any other goes to Express, as does any other spelling of the path
// or a query string.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppDeps } from '../../context';
import { AppError } from '../../utilities/errors';
import { carriesBearer, recogniseBearerToken, sendBearerRefusal } from '../../http/bearer';
import { sendJsonError } from '../../http/json-errors';
import { sendJson } from '../../http/json-response';
import { receiveUpload } from '../../http/receive-upload';
import { startRequest } from '../../http/request-start';
import { recogniseRequestSession } from '../../http/session';

const UPLOAD_PATH = '/api/v1/files';

export function isFastPathUpload(req: IncomingMessage): boolean {
  if (req.method !== 'POST' || req.url !== UPLOAD_PATH) return false;
  return carriesBearer(req) || (req.headers.origin === undefined && req.headers['sec-fetch-site'] !== 'cross-site');
}

/** Answers the upload whatever happens: there is no handing it on once its body is being read. */
export async function serveUploadFast(
  deps: AppDeps,
  req: IncomingMessage,
  res: ServerResponse,
  clientAddress: string,
): Promise<void> {
  const ctx = startRequest(deps, req, res, clientAddress);
  try {
    if (carriesBearer(req)) {
      const refusal = await recogniseBearerToken(ctx, req);
      if (refusal) return sendBearerRefusal(res, refusal);
    } else {
      await recogniseRequestSession(ctx, req, res, UPLOAD_PATH);
    }
    if (!ctx.user) return sendJsonError(res, new AppError('UNAUTHORIZED', 'Unauthorized'));
    sendJson(res, 201, await receiveUpload(ctx, req));
  } catch (error) {
    sendJsonError(res, error, req);
  }
}

// The JSON API, /api/v1 (docs/api.md). Each handler parses, calls a service, shapes JSON; the
// routes of each resource live in its own module, beside their OpenAPI description.
import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { AppError } from '../../utilities/errors';
import { carriesBearer, recogniseBearerToken, sendBearerRefusal } from '../../http/bearer';
import { sendJsonError } from '../../http/json-errors';
import { resumableUploads } from '../tus/resumable-uploads';
import { adminRoutes } from './admin';
import { collectionRoutes } from './collections';
import { fileRequestRoutes } from './file-requests';
import { fileListRoutes, oneFileRoutes } from './files';
import { meRoutes } from './me';
import { openApiDocument } from './openapi';
import { loginRoute, logoutRoute, sessionRoutes } from './sessions';
import { tokenRoutes } from './tokens';
import { twoFactorRoutes } from './two-factor';
import { resumableUploadRoutes } from './uploads';
import { webhookRoutes } from './webhooks';

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
  logoutRoute(router);
  router.use(tokenRecognition);
  loginRoute(router);
  fileListRoutes(router);
  resumableUploadRoutes(router, resumableUploads());
  oneFileRoutes(router);
  collectionRoutes(router);
  webhookRoutes(router);
  fileRequestRoutes(router);
  tokenRoutes(router);
  meRoutes(router);
  twoFactorRoutes(router);
  sessionRoutes(router);
  adminRoutes(router);

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

// What the /api/v1 routes share: async handlers, the session requirement, small JSON bodies.
import express, { type Request, type RequestHandler, type Response } from 'express';
import { AppError } from '../../utilities/errors';
import { sendJsonError } from '../../http/json-errors';

/** Express 4 does not forward rejected promises: this does. */
export const handler =
  (fn: (req: Request, res: Response) => Promise<void>): RequestHandler =>
  (req, res, next) =>
    fn(req, res).catch(next);

/** Services throw UNAUTHORIZED too; checking at the door first avoids reading a body for nothing. */
export const requireSession: RequestHandler = (_req, res, next) => {
  if (!res.locals.ctx.user) return sendJsonError(res, new AppError('UNAUTHORIZED', 'Unauthorized'));
  next();
};

/** A JSON body of at most `limit`: anything but `Content-Type: application/json` is a 400. */
export function jsonBody(limit: string): RequestHandler[] {
  return [
    express.json({ limit }),
    (req, res, next) => {
      if (req.is('application/json')) return next();
      sendJsonError(res, new AppError('BAD_REQUEST', 'Send a JSON object (Content-Type: application/json)'));
    },
  ];
}

/** A small JSON body: the PATCH of a file, a new token. */
export const jsonObjectBody = jsonBody('16kb');

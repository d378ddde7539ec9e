// `POST /r/<id>` from a script that asks for JSON (`Accept: application/json`): a guest's files
// sent to a file request (ADR 0048), answered 201 {"files":[…]} or {"error"} with its status.
// Anything else (a browser's form, curl without that header) goes on to the page's action.
import type { NextFunction, Request, Response } from 'express';
import { sendJsonError } from '../../http/json-errors';
import { readGuestGrant, receiveGuestFiles } from '../../http/receive-request-upload';

export function guestFilesAsJson() {
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.accepts(['html', 'json']) !== 'json') return next();
    const ctx = res.locals.ctx;
    const id = req.params.id ?? '';
    receiveGuestFiles(ctx, id, req.headers, req, readGuestGrant(req.headers.cookie, id)).then(
      (files) => void res.status(201).json({ files }),
      (error: unknown) => sendJsonError(res, error, req),
    );
  };
}

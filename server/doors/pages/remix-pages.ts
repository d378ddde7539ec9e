// The pages' door: Express to Remix. The same steps as @remix-run/express's adapter, with one
// difference: the request's signal is aborted once the response is over, finished or cut short.
// Under single fetch (ADR 0031) Remix starts a timer for each answer's data stream (its ~5 s
// limit for promises in loader data) and clears it only when that signal aborts. The upstream
// adapter aborts only a response cut short, so after every normal answer the timer stayed
// pending its 5 s; every page served left one (tests/sharing/view-page.test.ts).
import {
  createReadableStreamFromReadable,
  createRequestHandler,
  writeReadableStreamToWritable,
  type AppLoadContext,
  type ServerBuild,
} from '@remix-run/node';
import type { NextFunction, Request, Response } from 'express';
import { linkAtVisitorAddress, visitorOrigin } from '../../http/link-base';
import { keptPageBody, type SharePageCache } from './share-page-cache';

export function remixPages(
  build: ServerBuild,
  loadContextFor: (res: Response) => AppLoadContext,
  sharePages: SharePageCache,
) {
  // Always Remix's production mode: its development mode sends error details and stacks to the page.
  const handle = createRequestHandler(build, 'production');
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    try {
      linkAtVisitorAddress(res.locals.ctx, req);
      const answer = await handle(remixRequest(req, res), loadContextFor(res));
      await sendAnswer(res, answer, await keptPageBody(sharePages, res, answer));
    } catch (error) {
      next(error);
    }
  };
}

function remixRequest(req: Request, res: Response): globalThis.Request {
  // Joined as text: an originalUrl that starts with "//" stays a path, never another host.
  const url = new URL(`${visitorOrigin(req) ?? res.locals.ctx.config.baseUrl}${req.originalUrl}`);
  const done = new AbortController();
  // 'close' follows 'finish' when the answer went out whole, and comes alone when it was cut short.
  res.on('close', () => done.abort());
  const init: RequestInit & { duplex?: 'half' } = {
    method: req.method,
    headers: requestHeaders(req),
    signal: done.signal,
  };
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    init.body = createReadableStreamFromReadable(req);
    init.duplex = 'half';
  }
  return new globalThis.Request(url, init);
}

function requestHeaders(req: Request): Headers {
  const headers = new Headers();
  for (const [name, values] of Object.entries(req.headers)) {
    if (values === undefined) continue;
    for (const value of Array.isArray(values) ? values : [values]) headers.append(name, value);
  }
  return headers;
}

/** Sends Remix's answer; `body` when it was read already (a share page kept, share-page-cache.ts). */
async function sendAnswer(res: Response, answer: globalThis.Response, body: Buffer | null): Promise<void> {
  res.statusMessage = answer.statusText;
  res.status(answer.status);
  // append, not set: a page may send several Set-Cookie headers.
  for (const [name, value] of answer.headers.entries()) res.append(name, value);
  if (body) res.end(body);
  else if (answer.body) await writeReadableStreamToWritable(answer.body, res);
  else res.end();
}

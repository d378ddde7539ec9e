// A JSON answer written on Node's own response, with the headers Express's `res.json` gives it
// (the fast paths answer ahead of Express and must not differ from it: ADR 0022).
import type { ServerResponse } from 'node:http';
import etag from 'etag';

export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = Buffer.from(JSON.stringify(value));
  res.statusCode = status;
  if (!res.hasHeader('Content-Type')) res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', body.length);
  // Express's default `etag fn`: a weak tag of the body.
  res.setHeader('ETag', etag(body, { weak: true }));
  res.end(body);
}

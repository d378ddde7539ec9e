// The two requests an image host lives on, answered ahead of Express (ADR 0022): uploads to the
// API (rest/upload-fast-path.ts) and raw links (raw/raw-file-fast-path.ts). Everything else, and a raw
// link the fast path does not serve itself, goes to Express.
import type { RequestListener } from 'node:http';
import type { Express } from 'express';
import proxyAddr from 'proxy-addr';
import type { AppDeps } from '../context';
import { rawFastPathFileId, serveRawFileFast } from './raw/raw-file-fast-path';
import { answerServerFault } from '../http/status-page';
import { isFastPathUpload, serveUploadFast } from './rest/upload-fast-path';

export function withFastPaths(deps: AppDeps, app: Express): RequestListener {
  // The client address as Express works it out (TRUST_PROXY), from the function it compiled.
  const trustProxy = app.get('trust proxy fn') as (address: string, hop: number) => boolean;
  return (req, res) => {
    const fault = (error: unknown) => answerServerFault(res, error, req.url as string);
    if (isFastPathUpload(req)) {
      serveUploadFast(deps, req, res, proxyAddr(req, trustProxy)).catch(fault);
      return;
    }
    const fileId = rawFastPathFileId(req);
    if (fileId === null) return app(req, res);
    serveRawFileFast(deps, req, res, fileId, proxyAddr(req, trustProxy)).then((served) => {
      if (!served) app(req, res);
    }, fault);
  };
}

// The web app manifest (public/manifest.webmanifest) with the site's own name (SITE_NAME, ADR
// 0083): read once, named, then served as the file beside it is (its type, a day's cache, an ETag).
import fs from 'node:fs';
import path from 'node:path';
import type { RequestHandler } from 'express';

/** What a home screen shows under the icon: the name itself when it is this short. */
const SHORT_NAME_LENGTH = 12;

export function webManifest(publicDir: string, siteName: string): RequestHandler {
  const manifest = JSON.parse(fs.readFileSync(path.join(publicDir, 'manifest.webmanifest'), 'utf8')) as Record<
    string,
    unknown
  >;
  const body = JSON.stringify({
    ...manifest,
    name: siteName,
    ...([...siteName].length <= SHORT_NAME_LENGTH ? { short_name: siteName } : {}),
  });
  return (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=86400');
    res.type('application/manifest+json').send(body);
  };
}

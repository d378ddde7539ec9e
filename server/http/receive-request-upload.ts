// A guest's files sent to a file request, `POST /r/<id>` (ADR 0048): the page's form without
// JavaScript and scripts (`curl -F file=@x`) alike. Every file part of the body is streamed into
// the owner's space within the request's limits; the name, note and password fields come
// before the files. All or nothing: when one file is refused, those stored before it go again.
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { serialize } from 'cookie';
import { readShareGrant } from '../auth/cookie';
import type { Config } from '../config';
import type { ServiceContext } from '../context';
import { guestUploads, type SentFileDto } from '../services/file-requests/guest-uploads';
import { withEachUploadedFile } from './multipart';

/** The form's fields a guest sends before the files. */
const GUEST_FIELDS = ['name', 'note', 'password'] as const;

export async function receiveGuestFiles(
  ctx: ServiceContext,
  requestId: string,
  headers: IncomingHttpHeaders,
  body: Readable,
  grant: string | null,
): Promise<SentFileDto[]> {
  const guest = guestUploads(ctx, requestId, { grant });
  await guest.open();
  const { results } = await withEachUploadedFile(
    headers,
    body,
    { maxFileBytes: ctx.config.maxUploadBytes, fieldsBeforeFile: GUEST_FIELDS },
    ({ upload }) => guest.store(upload, upload.settings ?? {}),
    (sent) => guest.undo(sent),
  );
  return results.map(({ originalName, size }) => ({ originalName, size }));
}

/** The proof a right request password left: a cookie sent back only to `/r/<id>`. */
export function readGuestGrant(cookieHeader: string | undefined, requestId: string): string | null {
  return readShareGrant(cookieHeader, requestId);
}

/** The cookie that keeps a request's password proof, for its page only. */
export function requestGrantCookie(
  config: Pick<Config, 'secureCookies'>,
  requestId: string,
  grant: string,
  maxAgeSeconds: number,
): string {
  return serialize(`share_${requestId}`, grant, {
    httpOnly: true,
    path: `/r/${requestId}`,
    sameSite: 'lax',
    secure: config.secureCookies,
    maxAge: maxAgeSeconds,
  });
}

// A file request's page for guests, `/r/<id>` (ADR 0048): what is asked for, what the request
// still takes, and a plain form (a name, a note, several files) that works without JavaScript;
// with JavaScript, a drop zone that sends each file as a resumable upload with its progress.
// The answer lists what this guest sent in this visit, never what others sent, nor whose space
// the files go to. A protected request asks for its password first, as a protected file does.
import { Readable } from 'node:stream';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirectDocument } from '@remix-run/node';
import { Link, useActionData, useLoaderData } from '@remix-run/react';
import { ErrorPage, errorMeta } from '~/components/error-page';
import { RequestUploadForm, SentFiles } from '~/components/request-drop-zone';
import { UnlockForm } from '~/components/unlock-form';
import { pageErrorFrom, unlockRefusal } from '~/utils/errors.server';
import { readForm } from '~/utils/form.server';
import { pageTitle } from '~/utils/titles';

const REQUEST_NOT_FOUND = 'This file request does not exist, or it was deleted.';

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const { ctx, services, http } = context;
  const id = params.id ?? '';
  const access = await services.fileRequests.openFileRequest(ctx, id, {
    grant: http.readGuestGrant(request.headers.get('cookie') ?? undefined, id),
  });
  if (access.kind === 'missing') throw data({ message: REQUEST_NOT_FOUND }, { status: 404 });
  if (access.kind === 'gone') throw data({ message: access.message }, { status: 410 });
  if (access.kind === 'locked') return data({ locked: true as const }, { status: 401 });
  return data({ locked: false as const, view: access.view }, { headers: { 'Cache-Control': 'private, no-store' } });
}

type SentFile = { originalName: string; size: number };

/** The guest's files (a multipart form), or the request's password (the unlock form). */
export async function action({ request, params, context }: ActionFunctionArgs) {
  const { ctx, http } = context;
  const id = params.id ?? '';
  if (!(request.headers.get('content-type') ?? '').toLowerCase().startsWith('multipart/form-data')) {
    const form = await readForm(request);
    if (form.get('intent') !== 'unlock') throw data({ message: 'Unknown form.' }, { status: 400 });
    try {
      const { grant, maxAgeSeconds } = await context.services.fileRequests.unlockFileRequest(
        ctx,
        id,
        form.get('password'),
      );
      // A document load: the cookie's Path is /r/<id>, which a browser does not send to /r/<id>.data.
      return redirectDocument(`/r/${id}`, {
        status: 303,
        headers: { 'Set-Cookie': http.requestGrantCookie(ctx.config, id, grant, maxAgeSeconds) },
      });
    } catch (error) {
      const { status, message, headers } = unlockRefusal(context, error, REQUEST_NOT_FOUND);
      return data({ unlockError: message, sent: null, error: null }, { status, headers });
    }
  }
  if (!request.body) return data({ unlockError: null, sent: null, error: 'No file was sent.' }, { status: 400 });
  try {
    const sent: SentFile[] = await http.receiveGuestFiles(
      ctx,
      id,
      Object.fromEntries(request.headers),
      Readable.fromWeb(request.body as import('node:stream/web').ReadableStream),
      http.readGuestGrant(request.headers.get('cookie') ?? undefined, id),
    );
    return data({ unlockError: null, sent, error: null }, { status: 201 });
  } catch (error) {
    const { status, message } = pageErrorFrom(context, error);
    if (status === 404) throw data({ message: REQUEST_NOT_FOUND }, { status });
    // Closed, expired or full: the page says which.
    if (status === 410) throw data({ message }, { status });
    const headers: Record<string, string> = {};
    if (context.http.isAppError(error) && error.retryAfterSeconds !== undefined)
      headers['Retry-After'] = String(error.retryAfterSeconds);
    return data({ unlockError: null, sent: null, error: inWords(status, message) }, { status, headers });
  }
}

/** A refused form in words: nothing went (all or nothing), why, and how to try again. */
function inWords(status: number, message: string): string {
  if (status === 400 && message === 'No file uploaded') return 'Choose at least one file to send.';
  if (status === 401) return 'This file request is password-protected: open it with its password first.';
  const why = /[.!?]$/.test(message) ? message : `${message}.`;
  // A throttle's words already say when to try again (429).
  return `No file was sent. ${why} ${status === 429 ? 'Then choose the files again.' : 'Choose the files again to try again.'}`;
}

export const meta: MetaFunction<typeof loader> = ({ data, error, matches }) => {
  if (error) return errorMeta(error, matches);
  if (!data || data.locked)
    return [{ title: pageTitle(matches, 'File request') }, { name: 'robots', content: 'noindex' }];
  return [{ title: pageTitle(matches, `${data.view.title}`) }, { name: 'robots', content: 'noindex' }];
};

export default function FileRequestPage() {
  const loaded = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  if (loaded.locked)
    return <UnlockForm heading="Password-protected file request" error={answer?.unlockError ?? null} />;
  const { view } = loaded;
  return (
    <main className="narrow file-request">
      <h1 className="file-name">{view.title}</h1>
      {view.message ? <p className="file-request-message">{view.message}</p> : null}
      {answer?.sent ? (
        <SentFiles files={answer.sent}>
          <p>
            <Link to={`/r/${view.id}`} reloadDocument>
              Send more files
            </Link>
          </p>
        </SentFiles>
      ) : (
        <RequestUploadForm request={view} serverError={answer?.error ?? null} />
      )}
    </main>
  );
}

export function ErrorBoundary() {
  return <ErrorPage />;
}

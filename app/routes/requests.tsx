// The owner's file requests, `/requests` (ADR 0048): make one (a link through which guests send
// files into this account), see what each received (the guests' names and notes shown as text),
// close, reopen and delete them. Opening the page marks what arrived as seen.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { useEffect, useRef } from 'react';
import { ConfirmedForm } from '~/components/confirm-dialog';
import { ErrorPage, errorMeta } from '~/components/error-page';
import { FileName } from '~/components/file-name';
import { LocalTime } from '~/components/local-time';
import { ShareLink } from '~/components/share-link';
import { pageErrorFrom } from '~/utils/errors.server';
import { readForm } from '~/utils/form.server';
import { counted, formatBytes, formatLimit, readSize, type SizeUnits, unitsOf } from '~/utils/format';
import { requireUserPage } from '~/utils/session.server';

export const meta: MetaFunction = ({ error }) =>
  error ? errorMeta(error) : [{ title: 'File requests · File sharing' }];

const EXPIRY_CHOICES = [
  { value: '86400', label: '1 day' },
  { value: '604800', label: '7 days' },
  { value: '2592000', label: '30 days' },
  { value: 'never', label: 'Never' },
];

export async function loader({ request, context }: LoaderFunctionArgs) {
  requireUserPage(context, request);
  const { ctx, services } = context;
  const requests = await services.fileRequests.listFileRequests(ctx);
  const withFiles = await Promise.all(
    requests.map(async (one) => ({
      ...one,
      files: (await services.fileRequests.getOwnFileRequest(ctx, one.id)).files,
    })),
  );
  // Shown once as new, then seen.
  await services.fileRequests.markFileRequestsSeen(ctx);
  return data({ requests: withFiles }, { headers: { 'Cache-Control': 'private, no-store' } });
}

/** What the byte limit's field says it takes. */
const SIZE_HINT = 'a size such as 500 MB or 2 GiB';

/**
 * The byte limit typed in the form, in bytes, in either unit system (ADR 0065): it reads back in
 * the units it was typed in. Blank: no limit; null: not a size.
 */
function bytesTyped(value: FormDataEntryValue | null): number | undefined | null {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const bytes = readSize(value);
  return bytes === null || bytes < 1 ? null : bytes;
}

export async function action({ request, context }: ActionFunctionArgs) {
  requireUserPage(context, request);
  const { ctx, services } = context;
  const form = await readForm(request);
  const intent = form.get('intent');
  const id = String(form.get('id') ?? '');
  if (!['create', 'close', 'reopen', 'delete'].includes(String(intent)))
    throw data({ message: 'Unknown form.' }, { status: 400 });
  const maxBytes = bytesTyped(form.get('maxSize'));
  if (intent === 'create' && maxBytes === null)
    return data({ error: `Most data in all must be ${SIZE_HINT}.` }, { status: 400 });
  try {
    if (intent === 'create') {
      await services.fileRequests.createFileRequest(ctx, {
        title: form.get('title') ?? '',
        message: form.get('message') ?? '',
        expiresIn: form.get('expiresIn') ?? undefined,
        maxFiles: form.get('maxFiles') ?? undefined,
        maxBytes,
        password: form.get('password') ?? undefined,
        requireName: form.get('requireName') === 'on',
      });
    } else if (intent === 'close' || intent === 'reopen') {
      await services.fileRequests.setFileRequestClosed(ctx, id, intent === 'close');
    } else {
      await services.fileRequests.deleteFileRequest(ctx, id);
    }
  } catch (error) {
    const { status, message } = pageErrorFrom(context, error);
    if (status === 403) throw data({ message: 'You can only change your own file requests.' }, { status });
    if (status === 404) throw data({ message }, { status });
    return data({ error: message.replace(/^title/, 'Title') }, { status });
  }
  return redirect('/requests', { status: 303 });
}

/** What a request received reads in its limit's units, if it has one (ADR 0065). */
function unitsBeside(maxBytes: number | null): SizeUnits {
  return maxBytes === null ? 'binary' : unitsOf(maxBytes);
}

const STATE_WORDS = { open: 'Open', closed: 'Closed', expired: 'Expired', full: 'Full' } as const;

/**
 * Empties the new request's form once a request was made with it: the next request starts blank
 * instead of taking the last one's title and message along unseen. A refused one keeps what was
 * typed. (Without JavaScript the page is drawn anew, empty.)
 */
function useFormEmptiedAfterCreate(error: string | undefined) {
  const form = useRef<HTMLFormElement>(null);
  const navigation = useNavigation();
  const creating = navigation.state !== 'idle' && navigation.formData?.get('intent') === 'create';
  const wasCreating = useRef(false);
  useEffect(() => {
    if (wasCreating.current && !creating && !error) form.current?.reset();
    wasCreating.current = creating;
  }, [creating, error]);
  return form;
}

export default function FileRequests() {
  const { requests } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const form = useFormEmptiedAfterCreate(answer?.error);
  return (
    <main className="file-requests stack">
      <h1>File requests</h1>
      <p className="muted">
        A file request is a link through which anyone, without an account, sends files into your space. What they send
        counts against your storage and shows in <Link to="/files">My files</Link>.
      </p>
      <section className="card stack" aria-label="New file request">
        <h2>New file request</h2>
        {answer?.error ? (
          <p className="alert" role="alert">
            {answer.error}
          </p>
        ) : null}
        <Form method="post" className="stack" ref={form}>
          <input type="hidden" name="intent" value="create" />
          <label>
            <span>Title</span>
            <input type="text" name="title" required maxLength={200} />
          </label>
          <label>
            <span>Message to the people who send (optional)</span>
            <textarea name="message" maxLength={2000} rows={3} />
          </label>
          <label>
            <span>Stops taking files after</span>
            <select name="expiresIn" defaultValue="604800">
              {EXPIRY_CHOICES.map((choice) => (
                <option key={choice.value} value={choice.value}>
                  {choice.label}
                </option>
              ))}
            </select>
          </label>
          <label>
            <span>Most files (optional)</span>
            <input type="number" name="maxFiles" min={1} step={1} />
          </label>
          <label>
            <span>{`Most data in all (optional; ${SIZE_HINT})`}</span>
            <input type="text" name="maxSize" inputMode="decimal" maxLength={40} />
          </label>
          <label>
            <span>Password (optional)</span>
            <input type="password" name="password" autoComplete="new-password" maxLength={200} />
          </label>
          <label className="checkbox">
            <input type="checkbox" name="requireName" />
            <span>Ask for a name</span>
          </label>
          <button type="submit">Make the link</button>
        </Form>
      </section>
      {requests.length === 0 ? (
        <p className="empty-state">
          <strong>No file requests yet.</strong> Make one above and send its link.
        </p>
      ) : (
        <ul className="file-request-list">
          {requests.map((one) => (
            <li key={one.id} className="card stack" data-request-id={one.id}>
              <div className="file-request-heading">
                <h2>{one.title}</h2>
                <span className={`badge ${one.state}`}>{STATE_WORDS[one.state]}</span>
                {one.newFiles > 0 ? <span className="badge new">{one.newFiles} new</span> : null}
              </div>
              <p className="share-row">
                <span className="muted">Link</span>
                <ShareLink url={one.url} label={`Link of ${one.title}`} />
              </p>
              <p className="muted">
                {`${counted(one.filesReceived, 'file')} received (${formatBytes(one.bytesReceived, unitsBeside(one.maxBytes))})`}
                {one.maxFiles !== null ? ` of at most ${one.maxFiles}` : ''}
                {one.maxBytes !== null ? `; at most ${formatLimit(one.maxBytes)} in all` : ''}
                {one.expiresAt ? (
                  <>
                    ; {one.state === 'expired' ? 'expired' : 'open until'} <LocalTime iso={one.expiresAt} />
                  </>
                ) : null}
                {one.hasPassword ? '; password-protected' : ''}
              </p>
              {one.files.length > 0 ? (
                <ul className="file-request-files">
                  {one.files.map((file) => (
                    <li key={file.id}>
                      <span className="file-request-file">
                        <Link to={`/f/${file.id}`}>
                          <FileName name={file.originalName} />
                        </Link>{' '}
                        <span className="muted">{`(${formatBytes(file.size)})`}</span>
                        {file.isNew ? <span className="badge new">new</span> : null}
                      </span>
                      {file.guestName ? <span className="guest-name">from {file.guestName}</span> : null}
                      {file.guestNote ? <q className="guest-note">{file.guestNote}</q> : null}
                    </li>
                  ))}
                </ul>
              ) : null}
              <div className="actions">
                <Form method="post">
                  <input type="hidden" name="id" value={one.id} />
                  {one.state === 'closed' ? (
                    <button type="submit" name="intent" value="reopen">
                      Reopen
                    </button>
                  ) : (
                    <button type="submit" name="intent" value="close">
                      Close
                    </button>
                  )}
                </Form>
                <ConfirmedForm
                  method="post"
                  confirmation={{
                    question: `Delete the file request “${one.title}”? Its link stops working; the files it received stay in My files.`,
                    action: 'Delete',
                  }}
                >
                  <input type="hidden" name="id" value={one.id} />
                  <button type="submit" name="intent" value="delete" className="danger">
                    Delete
                  </button>
                </ConfirmedForm>
              </div>
            </li>
          ))}
        </ul>
      )}
    </main>
  );
}

export function ErrorBoundary() {
  return <ErrorPage />;
}

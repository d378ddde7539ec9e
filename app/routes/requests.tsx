// The owner's file requests, `/requests` (ADR 0048): make one (a link through which guests send
// files into this account), see what each received (the guests' names and notes shown as text),
// close, reopen and delete them. Opening the page marks what arrived as seen. With JavaScript
// the forms' actions go through /trpc in place (ADR 0077); without it, through this page's action.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { Link, useActionData, useLoaderData, useRevalidator } from '@remix-run/react';
import { useState } from 'react';
import { ErrorPage, errorMeta } from '~/components/error-page';
import { NewRequestSection } from '~/components/requests/new-request-form';
import { RequestCard } from '~/components/requests/request-card';
import { pageErrorFrom } from '~/utils/errors.server';
import { readForm } from '~/utils/form.server';
import { refusalOf, useInPlaceAnswer, useRowsGone } from '~/utils/in-place';
import { NOT_YOUR_REQUEST, newRequestInput, requestErrorInWords } from '~/utils/request-form';
import { requireUserPage } from '~/utils/session.server';
import { trpc } from '~/utils/trpc';
import { pageTitle } from '~/utils/titles';

export const meta: MetaFunction = ({ error, matches }) =>
  error ? errorMeta(error, matches) : [{ title: pageTitle(matches, 'File requests') }];

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

export async function action({ request, context }: ActionFunctionArgs) {
  requireUserPage(context, request);
  const { ctx, services } = context;
  const form = await readForm(request);
  const intent = form.get('intent');
  const id = String(form.get('id') ?? '');
  if (!['create', 'close', 'reopen', 'delete'].includes(String(intent)))
    throw data({ message: 'Unknown form.' }, { status: 400 });
  const sent = newRequestInput(form);
  if (intent === 'create' && 'error' in sent) return data({ error: sent.error }, { status: 400 });
  try {
    if (intent === 'create' && 'input' in sent) {
      await services.fileRequests.createFileRequest(ctx, sent.input);
    } else if (intent === 'close' || intent === 'reopen') {
      await services.fileRequests.setFileRequestClosed(ctx, id, intent === 'close');
    } else {
      await services.fileRequests.deleteFileRequest(ctx, id);
    }
  } catch (error) {
    const { status, message } = pageErrorFrom(context, error);
    if (status === 403) throw data({ message: NOT_YOUR_REQUEST }, { status });
    if (status === 404) throw data({ message }, { status });
    return data({ error: requestErrorInWords(message) }, { status });
  }
  return redirect('/requests', { status: 303 });
}

/**
 * The page's actions with JavaScript (ADR 0077): each a call to /trpc, then the list read again
 * (no reload). A deleted request goes at once and comes back, with the message, if the server
 * refuses. The messages are the form's.
 */
function useRequestCalls(pageError: string | undefined) {
  const [createError, setCreateError] = useInPlaceAnswer<string | null>(pageError);
  const [rowError, setRowError] = useState<string | null>(null);
  const rows = useRowsGone();
  const revalidator = useRevalidator();
  const create = trpc.requests.create.useMutation();
  const setClosed = trpc.requests.setClosed.useMutation();
  const remove = trpc.requests.delete.useMutation();
  const rowRefused = (error: unknown) => {
    const { status, message } = refusalOf(error);
    setRowError(status === 403 ? NOT_YOUR_REQUEST : requestErrorInWords(message));
  };
  const settled = (error?: unknown) => {
    if (error) rowRefused(error);
    else setRowError(null);
    revalidator.revalidate();
  };
  return {
    createError,
    rowError,
    gone: rows.gone,
    create: async (form: FormData) => {
      const sent = newRequestInput(form);
      if ('error' in sent) {
        setCreateError(sent.error);
        return false;
      }
      try {
        await create.mutateAsync(sent.input);
      } catch (error) {
        setCreateError(requestErrorInWords(refusalOf(error).message));
        return false;
      }
      setCreateError(null);
      revalidator.revalidate();
      return true;
    },
    setClosed: (id: string, closed: boolean) =>
      setClosed.mutate({ id, closed }, { onSuccess: () => settled(), onError: settled }),
    remove: (id: string) => {
      rows.hide(id);
      remove.mutate(
        { id },
        {
          onSuccess: () => settled(),
          onError: (error) => {
            rows.show(id);
            settled(error);
          },
        },
      );
    },
  };
}

export default function FileRequests() {
  const { requests } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const calls = useRequestCalls(answer?.error);
  const shown = requests.filter((one) => !calls.gone(one.id));
  return (
    <main className="file-requests stack">
      <h1>File requests</h1>
      <p className="muted">
        A file request is a link through which anyone, without an account, sends files into your space. What they send
        counts against your storage and shows in <Link to="/files">My files</Link>.
      </p>
      <NewRequestSection error={calls.createError} onCreate={calls.create} />
      {calls.rowError ? (
        <p className="alert" role="alert">
          {calls.rowError}
        </p>
      ) : null}
      {shown.length === 0 ? (
        <p className="empty-state">
          <strong>No file requests yet.</strong> Make one above and send its link.
        </p>
      ) : (
        <ul className="file-request-list">
          {shown.map((one) => (
            <RequestCard
              key={one.id}
              request={one}
              onSetClosed={(closed) => calls.setClosed(one.id, closed)}
              onDelete={() => calls.remove(one.id)}
            />
          ))}
        </ul>
      )}
    </main>
  );
}

export function ErrorBoundary() {
  return <ErrorPage />;
}

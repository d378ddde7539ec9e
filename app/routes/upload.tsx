import { Readable } from 'node:stream';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { useActionData, useLoaderData } from '@remix-run/react';
import { ErrorPage, errorMeta } from '~/components/error-page';
import { UploadForm } from '~/components/upload-form';
import { pageErrorFrom } from '~/utils/errors.server';
import { sentShareSettings, uploadErrorInWords, type SentShareSettings } from '~/utils/form-errors';
import { requireUserPage } from '~/utils/session.server';
import { pageTitle } from '~/utils/titles';

export const meta: MetaFunction = ({ error, matches }) =>
  error ? errorMeta(error, matches) : [{ title: pageTitle(matches, 'Upload') }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = requireUserPage(context, request);
  const { ctx, services } = context;
  return {
    expiry: services.shareSettings.expiryChoices(ctx.config),
    maxUploadBytes: ctx.config.maxUploadBytes,
    allowance: await services.storage.myUploadAllowance(ctx),
    ownerId: user.id,
  };
}

// Without JavaScript the form posts here: the body is streamed through busboy into the
// same upload service as the API, never buffered whole. One file goes to its page; several make
// a collection, which the browser goes to (ADR 0038).
export async function action({ request, context }: ActionFunctionArgs) {
  requireUserPage(context, request);
  const { ctx, http } = context;
  if (!request.body) return data({ error: 'No file uploaded', sent: null }, { status: 400 });
  // The link options as the parser handed them over, so that a refused form comes back with
  // them (a refusal before the first file part, or before the body is read, has none to give).
  const typed: { sent: SentShareSettings | null } = { sent: null };
  try {
    const stored = await http.receiveUploadForm(
      ctx,
      Object.fromEntries(request.headers),
      Readable.fromWeb(request.body as import('node:stream/web').ReadableStream),
      (fields) => {
        typed.sent = sentShareSettings((name) => fields[name]);
      },
    );
    return redirect(stored.kind === 'file' ? `/f/${stored.file.id}` : `/c/${stored.collection.id}`);
  } catch (error) {
    const { status, message } = pageErrorFrom(context, error);
    return data(
      { error: uploadErrorInWords(status, message, ctx.config.maxUploadBytes), sent: typed.sent },
      { status },
    );
  }
}

export default function Upload() {
  const actionData = useActionData<typeof action>();
  const { expiry, maxUploadBytes, allowance, ownerId } = useLoaderData<typeof loader>();
  return (
    <main className="narrow">
      <h1>Upload a file</h1>
      <UploadForm
        serverError={actionData?.error ?? null}
        sent={actionData?.sent ?? null}
        expiry={expiry}
        maxUploadBytes={maxUploadBytes}
        allowance={allowance}
        ownerId={ownerId}
      />
    </main>
  );
}

// Its own boundary, so that an error thrown by the action still shows the signed-in header
// (app/components/error-page.tsx).
export function ErrorBoundary() {
  return <ErrorPage />;
}

import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { json } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { LocalTime } from '~/components/local-time';
import { ShareLink } from '~/components/share-link';
import { pageErrorFrom } from '~/utils/errors.server';
import { requireUserPage } from '~/utils/session.server';

export const meta: MetaFunction = () => [{ title: 'Settings · File sharing' }];

/** Lifetimes offered for a new token, in days ("" for none). */
const TOKEN_LIFETIMES = [
  ['30', '30 days'],
  ['90', '90 days'],
  ['365', '1 year'],
  ['', 'No expiry'],
] as const;

export async function loader({ request, context }: LoaderFunctionArgs) {
  requireUserPage(context, request);
  const { ctx, services } = context;
  return json({ tokens: await services.apiTokens.listApiTokens(ctx), now: ctx.clock.now() });
}

type ActionResult = { error: string | null; notice: string | null; created: { token: string; name: string } | null };

export async function action({ request, context }: ActionFunctionArgs) {
  requireUserPage(context, request);
  const { ctx, services } = context;
  const form = await request.formData();
  const intent = form.get('intent');
  try {
    if (intent === 'create-token') {
      const days = form.get('expiresInDays');
      const created = await services.apiTokens.createApiToken(ctx, {
        name: form.get('name') ?? '',
        expiresInDays: typeof days === 'string' && days !== '' ? days : null,
      });
      return json<ActionResult>({ error: null, notice: null, created: { token: created.token, name: created.apiToken.name } }, { status: 201 });
    }
    if (intent === 'revoke-token') {
      await services.apiTokens.revokeApiToken(ctx, String(form.get('id') ?? ''));
      return json<ActionResult>({ error: null, notice: 'The token was revoked: it no longer works.', created: null });
    }
  } catch (error) {
    const { status, message } = pageErrorFrom(context, error);
    return json<ActionResult>({ error: message, notice: null, created: null }, { status });
  }
  return json<ActionResult>({ error: 'Unknown form.', notice: null, created: null }, { status: 400 });
}

export default function Settings() {
  const { tokens, now } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  return (
    <main>
      <h1>Settings</h1>
      <section className="card stack" aria-labelledby="tokens-heading">
        <h2 id="tokens-heading">API tokens</h2>
        <p className="muted">
          For scripts, curl and upload tools such as ShareX: send <code>Authorization: Bearer &lt;token&gt;</code> to the file
          routes of <code>/api/v1</code>. A token cannot log in to these pages or make other tokens.
        </p>
        {result?.error ? (
          <p className="alert" role="alert">
            {result.error}
          </p>
        ) : null}
        {result?.notice ? (
          <p className="notice" role="status">
            {result.notice}
          </p>
        ) : null}
        {result?.created ? (
          <div className="new-token stack" role="status">
            <p>
              <strong>{`Token “${result.created.name}” created.`}</strong> Copy it now: it is not shown again.
            </p>
            <ShareLink url={result.created.token} label="Your new API token" copyLabel="Copy token" />
            <Form method="post" action="/settings/sharex" reloadDocument>
              <input type="hidden" name="token" value={result.created.token} />
              <button type="submit" className="secondary">
                Download ShareX config (.sxcu)
              </button>
            </Form>
          </div>
        ) : null}
        <Form method="post" className="token-form">
          <input type="hidden" name="intent" value="create-token" />
          <label>
            <span>Name</span>
            <input name="name" required maxLength={100} placeholder="e.g. ShareX on my laptop" />
          </label>
          <label>
            <span>Expires after</span>
            <select name="expiresInDays" defaultValue="90">
              {TOKEN_LIFETIMES.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          <button type="submit">Create token</button>
        </Form>
        {tokens.length === 0 ? (
          <p className="muted">No tokens yet.</p>
        ) : (
          <div className="table-wrap">
            <table className="tokens">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Token</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <th scope="col">Expires</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {tokens.map((token) => (
                  <tr key={token.id} data-token-id={token.id}>
                    <td className="name">{token.name}</td>
                    <td>
                      <code>{`${token.start}…`}</code>
                    </td>
                    <td>
                      <LocalTime iso={token.createdAt} />
                    </td>
                    <td>{token.lastUsedAt ? <LocalTime iso={token.lastUsedAt} /> : 'never'}</td>
                    <td>
                      {token.expiresAt === null ? 'never' : Date.parse(token.expiresAt) <= now ? 'expired' : <LocalTime iso={token.expiresAt} />}
                    </td>
                    <td>
                      <Form method="post">
                        <input type="hidden" name="intent" value="revoke-token" />
                        <input type="hidden" name="id" value={token.id} />
                        <button type="submit" className="danger small" aria-label={`Revoke ${token.name}`}>
                          Revoke
                        </button>
                      </Form>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </main>
  );
}

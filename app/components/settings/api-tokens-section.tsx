import { Form } from '@remix-run/react';
import { useEffect, useRef } from 'react';
import type { ApiTokenDto } from '../../../server/services/api-tokens';
import { LocalTime } from '~/components/local-time';
import { ShareLink } from '~/components/share-link';
import { FormResult, type SettingsResult } from './form-result';
import { RowAction } from './row-action';

/** Lifetimes offered for a new token, in days ("" for none). */
const TOKEN_LIFETIMES = [
  ['30', '30 days'],
  ['90', '90 days'],
  ['365', '1 year'],
  ['', 'No expiry'],
] as const;

/** Personal access tokens: created (shown once), listed by their first characters, revoked. */
export function ApiTokensSection({
  tokens,
  now,
  result,
}: {
  tokens: ApiTokenDto[];
  now: number;
  result: SettingsResult | undefined;
}) {
  const created = result?.section === 'tokens' ? result.created : null;
  const sent = result?.section === 'tokens' ? result.sentToken : null;
  // With JavaScript the page stays after a token is made: the form empties, ready for the next
  // one, as a page drawn anew without JavaScript is. (A refused form keeps what was typed.)
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (created) form.current?.reset();
  }, [created]);
  return (
    <section className="card stack" aria-labelledby="tokens-heading">
      <h2 id="tokens-heading">API tokens</h2>
      <p className="muted">
        For scripts, curl and upload tools such as ShareX: send <code>Authorization: Bearer &lt;token&gt;</code> to the
        file routes of <code>/api/v1</code>. A token cannot log in to these pages or make other tokens.
      </p>
      <FormResult result={result} section="tokens" />
      {created ? (
        <div className="new-token stack" role="status">
          <p>
            <strong>{`Token “${created.name}” created.`}</strong> Copy it now: it is not shown again.
          </p>
          <ShareLink url={created.token} label="Your new API token" copyLabel="Copy token" />
          <Form method="post" action="/settings/sharex" reloadDocument>
            <input type="hidden" name="token" value={created.token} />
            <button type="submit" className="secondary">
              Download ShareX config (.sxcu)
            </button>
          </Form>
        </div>
      ) : null}
      <Form method="post" className="token-form" ref={form}>
        <input type="hidden" name="intent" value="create-token" />
        <label>
          <span>Name</span>
          <input
            name="name"
            required
            maxLength={100}
            placeholder="e.g. ShareX on my laptop"
            defaultValue={sent?.name ?? ''}
          />
        </label>
        <label>
          <span>Expires after</span>
          <select name="expiresInDays" defaultValue={sent?.expiresInDays ?? '90'}>
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
        <p className="empty-state">
          <strong>No tokens yet.</strong> Name one above for a script or an upload tool; it is shown once, then listed
          here.
        </p>
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
                  {/* data-label: the column's name, shown beside the value on a phone (no header row there). */}
                  <td data-label="Token">
                    <code>{`${token.start}…`}</code>
                  </td>
                  <td data-label="Created">
                    <LocalTime iso={token.createdAt} />
                  </td>
                  <td data-label="Last used">{token.lastUsedAt ? <LocalTime iso={token.lastUsedAt} /> : 'never'}</td>
                  <td data-label="Expires">
                    {token.expiresAt === null ? (
                      'never'
                    ) : Date.parse(token.expiresAt) <= now ? (
                      'expired'
                    ) : (
                      <LocalTime iso={token.expiresAt} />
                    )}
                  </td>
                  <td>
                    <RowAction
                      intent="revoke-token"
                      id={token.id}
                      label="Revoke"
                      ariaLabel={`Revoke ${token.name}`}
                      confirmation={{
                        question: `Revoke the token “${token.name}”? Whatever uses it stops working at once.`,
                        action: 'Revoke',
                      }}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

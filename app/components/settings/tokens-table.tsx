import type { ApiTokenDto } from '../../../server/services/api-tokens';
import { LocalTime } from '~/components/local-time';
import { RowAction } from './row-action';

/** The user's tokens, each by its first characters, with a way to revoke it. */
export function TokensTable({
  tokens,
  now,
  onRevoke,
}: {
  tokens: ApiTokenDto[];
  now: number;
  onRevoke: (token: ApiTokenDto) => void;
}) {
  return (
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
                  onConfirmed={() => onRevoke(token)}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

import { Form, Link } from '@remix-run/react';
import type { Account, AccountsQuery } from '../../../server/services/admin-accounts';
import { LocalTime } from '~/components/local-time';
import { counted, formatBytes, formatLimit } from '~/utils/format';

/** An account as the list shows it, and the list's search, order and page (the loader's JSON). */
type AccountView = Omit<Account, 'id'>;
type ListQuery = AccountsQuery;
type Sort = ListQuery['sort'];

/** The columns the list sorts by, with their headings. */
const SORTED_COLUMNS: Array<[Sort, string]> = [
  ['username', 'Username'],
  ['created', 'Created'],
  ['lastSignIn', 'Last sign-in'],
  ['files', 'Files'],
  ['bytes', 'Stored'],
];

/** Sends one of the console's forms in place (app/components/admin/use-admin-calls.ts). */
export type SendInPlace = (form: HTMLFormElement) => void;

/** A form's submit handler that sends it in place: it runs only with JavaScript; without, the form is posted. */
export function inPlace(onAct: SendInPlace) {
  return (event: React.FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    onAct(event.currentTarget);
  };
}

/** The list's address with some of its query changed (the page goes back to 1 unless given). */
export function listHref(query: ListQuery, change: Partial<ListQuery>): string {
  const next = { ...query, page: 1, ...change };
  const params = new URLSearchParams();
  if (next.q) params.set('q', next.q);
  if (next.sort !== 'username') params.set('sort', next.sort);
  if (next.order !== 'asc') params.set('order', next.order);
  if (next.page > 1) params.set('page', String(next.page));
  const search = params.toString();
  return search ? `/admin?${search}` : '/admin';
}

/** A column's heading: a link that sorts by it, the other way round when it already does. */
function SortHeading({ query, sort, children }: { query: ListQuery; sort: Sort; children: string }) {
  const current = query.sort === sort;
  const order = current && query.order === 'asc' ? 'desc' : 'asc';
  return (
    <th scope="col" aria-sort={current ? (query.order === 'asc' ? 'ascending' : 'descending') : undefined}>
      <Link to={listHref(query, { sort, order })}>
        {children}
        {current ? (query.order === 'asc' ? ' ↑' : ' ↓') : ''}
      </Link>
    </th>
  );
}

function quotaText(account: AccountView): string {
  const size = account.quotaBytes === null ? 'unlimited' : formatLimit(account.quotaBytes);
  return account.quotaSource === 'own' ? size : `${size} (default)`;
}

/** One small form of an account's actions: the intent and the username go with it. */
function AccountAction({
  account,
  intent,
  label,
  onAct,
}: {
  account: AccountView;
  intent: string;
  label: string;
  onAct: SendInPlace;
}) {
  return (
    <Form method="post" className="inline" onSubmit={inPlace(onAct)}>
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="username" value={account.username} />
      <button type="submit" className="secondary" aria-label={`${label}: ${account.username}`}>
        {label}
      </button>
    </Form>
  );
}

/** What an admin can do to one account, behind a disclosure so that the table stays readable. */
function AccountActions({ account, onAct }: { account: AccountView; onAct: SendInPlace }) {
  return (
    <details className="account-actions">
      <summary aria-label={`Manage ${account.username}`}>Manage</summary>
      <div className="account-actions-body">
        <Form method="post" className="quota-form" onSubmit={inPlace(onAct)}>
          <input type="hidden" name="intent" value="set-quota" />
          <input type="hidden" name="username" value={account.username} />
          <label>
            Quota of {account.username}
            <input name="quota" placeholder="2GB, none or default" maxLength={32} required />
          </label>
          <button type="submit" className="secondary">
            Set quota
          </button>
        </Form>
        <AccountAction
          account={account}
          intent={account.disabled ? 'enable' : 'disable'}
          label={account.disabled ? 'Enable' : 'Disable'}
          onAct={onAct}
        />
        <AccountAction
          account={account}
          intent={account.admin ? 'admin-off' : 'admin-on'}
          label={account.admin ? 'Remove admin' : 'Make admin'}
          onAct={onAct}
        />
        <AccountAction account={account} intent="sign-out" label="Sign out everywhere" onAct={onAct} />
        {account.twoFactor ? (
          <AccountAction account={account} intent="reset-2fa" label="Reset two-factor codes" onAct={onAct} />
        ) : null}
        <Link
          to={`/admin/users/${encodeURIComponent(account.username)}/delete`}
          className="danger-link"
          aria-label={`Delete ${account.username}`}
        >
          Delete…
        </Link>
      </div>
    </details>
  );
}

/** Every account of the page, with what each stores and its state. */
export function AccountsTable({
  accounts,
  query,
  onAct,
}: {
  accounts: AccountView[];
  query: ListQuery;
  onAct: SendInPlace;
}) {
  return (
    <div className="table-wrap">
      <table className="accounts">
        <thead>
          <tr>
            {SORTED_COLUMNS.map(([sort, label]) => (
              <SortHeading key={sort} query={query} sort={sort}>
                {label}
              </SortHeading>
            ))}
            <th scope="col">Quota</th>
            <th scope="col">Sign-in</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {accounts.map((account) => (
            <tr key={account.username} data-username={account.username}>
              <td className="name">
                {account.username}
                {account.admin ? <span className="badge">admin</span> : null}
                {account.disabled ? <span className="badge warning">disabled</span> : null}
              </td>
              <td data-label="Created">
                <LocalTime iso={account.createdAt} />
              </td>
              <td data-label="Last sign-in">
                {account.lastSignInAt ? <LocalTime iso={account.lastSignInAt} /> : 'never'}
              </td>
              <td data-label="Files">{counted(account.files, 'file')}</td>
              <td data-label="Stored">{formatBytes(account.bytes)}</td>
              <td data-label="Quota">{quotaText(account)}</td>
              <td data-label="Sign-in">
                {[
                  account.twoFactor ? 'two-factor codes' : 'password',
                  ...(account.oidcSubject ? [`identity ${account.oidcSubject}`] : []),
                ].join(', ')}
              </td>
              <td>
                <AccountActions account={account} onAct={onAct} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

// The admin console's storage, `/admin/storage` (ADR 0083): what the site stores in all and per
// user (largest first), what unfinished uploads hold, where content lives and the room left.
// To anyone but an admin the address does not exist (404).
import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { AdminNav } from '~/components/admin/admin-nav';
import { ErrorPage, errorMeta } from '~/components/error-page';
import { throwPageError } from '~/utils/errors.server';
import { counted, formatBytes } from '~/utils/format';
import { pageTitle } from '~/utils/titles';

export const meta: MetaFunction = ({ error, matches }) =>
  error ? errorMeta(error, matches) : [{ title: pageTitle(matches, 'Storage · Admin') }];

export async function loader({ context }: LoaderFunctionArgs) {
  try {
    const storage = await context.services.admin.storageOverview(context.ctx);
    return data(storage, { headers: { 'Cache-Control': 'private, no-store' } });
  } catch (error) {
    throwPageError(context, error, { 404: 'Page not found.' });
  }
}

export default function AdminStorage() {
  const storage = useLoaderData<typeof loader>();
  const { backend, space } = storage;
  return (
    <main className="admin">
      <h1>Admin</h1>
      <AdminNav />
      <section aria-labelledby="storage-heading">
        <h2 id="storage-heading">Storage</h2>
        <dl className="admin-facts">
          <dt>Stored</dt>
          <dd>{`${formatBytes(storage.bytes)} in ${counted(storage.files, 'file')}`}</dd>
          <dt>Held by unfinished uploads</dt>
          <dd>{`${formatBytes(storage.held.bytes)} by ${counted(storage.held.uploads, 'upload')}`}</dd>
          <dt>Where</dt>
          <dd>
            {backend.kind === 'disk' ? (
              <>
                a folder on this machine: <code>{backend.folder}</code>
              </>
            ) : (
              <>
                the bucket <code>{backend.bucket}</code>
                {backend.endpoint ? (
                  <>
                    {' '}
                    at <code>{backend.endpoint}</code>
                  </>
                ) : null}
              </>
            )}
          </dd>
          <dt>Room left</dt>
          <dd>
            {space
              ? `${formatBytes(space.freeBytes)} free of ${formatBytes(space.totalBytes)}`
              : 'not known for a bucket: its provider sets the limits'}
          </dd>
        </dl>
      </section>
      <section aria-labelledby="largest-heading">
        <h2 id="largest-heading">Largest users</h2>
        {storage.largestUsers.length ? (
          <div className="table-wrap">
            <table className="accounts">
              <thead>
                <tr>
                  <th scope="col">Username</th>
                  <th scope="col">Files</th>
                  <th scope="col">Stored</th>
                </tr>
              </thead>
              <tbody>
                {storage.largestUsers.map((user) => (
                  <tr key={user.username} data-username={user.username}>
                    <td className="name">{user.username}</td>
                    <td data-label="Files">{counted(user.files, 'file')}</td>
                    <td data-label="Stored">{formatBytes(user.bytes)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <p>Nobody stores a file yet.</p>
        )}
      </section>
    </main>
  );
}

export function ErrorBoundary() {
  return <ErrorPage />;
}

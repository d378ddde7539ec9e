// The admin console's settings, `/admin/settings` (ADR 0083): every variable the service reads
// as it was set when it started, secrets hidden, read-only (they are changed where the service
// is run). To anyone but an admin the address does not exist (404).
import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { AdminNav } from '~/components/admin/admin-nav';
import { ErrorPage, errorMeta } from '~/components/error-page';
import { throwPageError } from '~/utils/errors.server';
import { pageTitle } from '~/utils/titles';

export const meta: MetaFunction = ({ error, matches }) =>
  error ? errorMeta(error, matches) : [{ title: pageTitle(matches, 'Settings · Admin') }];

export async function loader({ context }: LoaderFunctionArgs) {
  try {
    const settings = await context.services.admin.settingsInForce(context.ctx);
    return data({ settings }, { headers: { 'Cache-Control': 'private, no-store' } });
  } catch (error) {
    throwPageError(context, error, { 404: 'Page not found.' });
  }
}

export default function AdminSettings() {
  const { settings } = useLoaderData<typeof loader>();
  return (
    <main className="admin">
      <h1>Admin</h1>
      <AdminNav />
      <section aria-labelledby="settings-heading">
        <h2 id="settings-heading">Settings in force</h2>
        <p className="muted">
          As the environment set them when the service started; they change where it runs (the README lists each).
        </p>
        <div className="table-wrap">
          <table className="accounts settings-in-force">
            <thead>
              <tr>
                <th scope="col">Variable</th>
                <th scope="col">Value</th>
              </tr>
            </thead>
            <tbody>
              {settings.map((setting) => (
                <tr key={setting.name}>
                  <td className="name">
                    <code>{setting.name}</code>
                  </td>
                  <td data-label="Value">
                    {setting.value === null ? (
                      <span className="muted">not set: the default</span>
                    ) : (
                      <code>{setting.value}</code>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </main>
  );
}

export function ErrorBoundary() {
  return <ErrorPage />;
}

// The admin console's activity log, `/admin/audit` (ADR 0087): every security-relevant event,
// newest first, 50 to a page, filtered by who, what and when; and the same as JSON lines for
// keeping elsewhere. A plain GET form: the same with JavaScript on or off. To anyone but an
// admin the address does not exist (404).
import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, Link, useLoaderData } from '@remix-run/react';
import { AdminNav } from '~/components/admin/admin-nav';
import { ErrorPage, errorMeta } from '~/components/error-page';
import { LocalTime } from '~/components/local-time';
import { throwPageError } from '~/utils/errors.server';
import { counted } from '~/utils/format';
import { pageTitle } from '~/utils/titles';

export const meta: MetaFunction = ({ error, matches }) =>
  error ? errorMeta(error, matches) : [{ title: pageTitle(matches, 'Activity log · Admin') }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  try {
    const trail = await context.services.activity.listActivityEvents(context.ctx, Object.fromEntries(url.searchParams));
    return data(
      { ...trail, actions: context.services.activity.ACTIVITY_ACTIONS },
      { headers: { 'Cache-Control': 'private, no-store' } },
    );
  } catch (error) {
    // A filter that is not one (a date that is no date): said on the page's error page.
    throwPageError(context, error, { 404: 'Page not found.' });
  }
}

type Query = { who: string; action: string; since: string; until: string };

function hrefOf(query: Query, page: number): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value) params.set(name, value);
  if (page > 1) params.set('page', String(page));
  const text = params.toString();
  return text ? `/admin/audit?${text}` : '/admin/audit';
}

export default function AdminActivity() {
  const { events, total, page, pages, query, actions } = useLoaderData<typeof loader>();
  const exportHref = `/api/v1/admin/audit/export${query.since ? `?${new URLSearchParams({ since: query.since })}` : ''}`;
  return (
    <main className="admin">
      <h1>Admin</h1>
      <AdminNav />
      <section aria-labelledby="activity-heading">
        <h2 id="activity-heading">Activity log</h2>
        <Form method="get" className="search-form activity-filters">
          <label>
            Who
            <input name="who" defaultValue={query.who} maxLength={64} placeholder="a username" />
          </label>
          <label>
            What
            <select name="action" defaultValue={query.action}>
              <option value="">Everything</option>
              {actions.map((action) => (
                <option key={action} value={action}>
                  {action}
                </option>
              ))}
            </select>
          </label>
          <label>
            Since
            <input type="date" name="since" defaultValue={query.since} />
          </label>
          <label>
            Until
            <input type="date" name="until" defaultValue={query.until} />
          </label>
          <button type="submit" className="secondary">
            Show
          </button>
        </Form>
        <p className="muted">
          {`${counted(total, 'event')}. `}
          <a href={exportHref}>Export as JSON lines</a>
        </p>
        {events.length ? (
          <div className="table-wrap">
            <table className="accounts activity">
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Who</th>
                  <th scope="col">What</th>
                  <th scope="col">On</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">From</th>
                </tr>
              </thead>
              <tbody>
                {events.map((event) => (
                  <tr key={event.id}>
                    <td className="name">
                      <LocalTime iso={event.at} />
                    </td>
                    <td data-label="Who">
                      {event.actor.name ?? event.actor.kind}
                      {event.actor.name && event.actor.kind !== 'user' ? ` (${event.actor.kind})` : ''}
                    </td>
                    <td data-label="What">
                      {event.action}
                      {event.detail ? <span className="muted">{` · ${event.detail}`}</span> : null}
                    </td>
                    <td data-label="On">
                      {event.target ? `${event.target.kind} ${event.target.name ?? event.target.id ?? ''}` : ''}
                    </td>
                    <td data-label="Outcome">
                      {event.outcome === 'failure' ? <span className="badge warning">failure</span> : 'success'}
                    </td>
                    <td data-label="From">{event.address ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <p>No event matches.</p>
        )}
        {pages > 1 ? (
          <nav aria-label="Pages of events" className="pager">
            {page > 1 ? <Link to={hrefOf(query, page - 1)}>Newer</Link> : null}
            <span>{`Page ${page} of ${pages}`}</span>
            {page < pages ? <Link to={hrefOf(query, page + 1)}>Older</Link> : null}
          </nav>
        ) : null}
      </section>
    </main>
  );
}

export function ErrorBoundary() {
  return <ErrorPage />;
}

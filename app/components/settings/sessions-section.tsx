import { Form } from '@remix-run/react';
import type { SessionDto } from '../../../server/services/sessions';
import { LocalTime } from '~/components/local-time';
import { FormResult, type SettingsResult } from './form-result';
import { RowAction } from './row-action';

/** Where the user is logged in, with a way out for each session and for all of them. */
export function SessionsSection({ sessions, result }: { sessions: SessionDto[]; result: SettingsResult | undefined }) {
  return (
    <section className="card stack" aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">Sessions</h2>
      <p className="muted">
        Browsers and scripts logged in to your account. Logging a session out takes effect at its next request.
      </p>
      <FormResult result={result} section="sessions" />
      <div className="table-wrap">
        <table className="sessions">
          <thead>
            <tr>
              <th scope="col">Browser</th>
              <th scope="col">Address</th>
              <th scope="col">Logged in</th>
              <th scope="col">Last seen</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {sessions.map((session) => (
              <tr key={session.id} data-session-id={session.id} aria-current={session.current ? 'true' : undefined}>
                <td className="name">
                  {session.browser}
                  {session.signedInVia ? <span className="muted"> via {session.signedInVia}</span> : null}
                  {session.current ? <strong className="this-session"> (this session)</strong> : null}
                </td>
                {/* data-label: the column's name, shown beside the value on a phone (no header row there). */}
                <td data-label="Address">{session.address ?? 'unknown'}</td>
                <td data-label="Logged in">
                  <LocalTime iso={session.createdAt} />
                </td>
                <td data-label="Last seen">
                  <LocalTime iso={session.lastSeenAt} />
                </td>
                <td>
                  <RowAction
                    intent="revoke-session"
                    id={session.id}
                    label="Log out"
                    ariaLabel={session.current ? 'Log out this session' : `Log out ${session.browser} session`}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Form method="post">
        <input type="hidden" name="intent" value="revoke-all-sessions" />
        <button type="submit" className="danger">
          Log out everywhere
        </button>
      </Form>
    </section>
  );
}

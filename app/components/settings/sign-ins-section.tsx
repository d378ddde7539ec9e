import type { ActivityEntry } from '../../../server/services/activity-log';
import { LocalTime } from '~/components/local-time';

/** The account's latest sign-ins and failed attempts at it, from the activity log (ADR 0087). */
export function SignInsSection({ signIns }: { signIns: ActivityEntry[] }) {
  return (
    <section className="card stack" aria-labelledby="sign-ins-heading">
      <h2 id="sign-ins-heading">Recent sign-ins</h2>
      <p className="muted">Sign-ins to your account, and attempts that failed, newest first.</p>
      {signIns.length ? (
        <div className="table-wrap">
          <table className="sessions sign-ins">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">How</th>
                <th scope="col">Address</th>
                <th scope="col">Outcome</th>
              </tr>
            </thead>
            <tbody>
              {signIns.map((signIn) => (
                <tr key={signIn.id}>
                  <td>
                    <LocalTime iso={signIn.at} />
                  </td>
                  <td data-label="How">{signIn.detail ?? ''}</td>
                  <td data-label="Address">{signIn.address ?? 'unknown'}</td>
                  <td data-label="Outcome">{signIn.outcome === 'failure' ? 'failed' : 'signed in'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p>None kept.</p>
      )}
    </section>
  );
}

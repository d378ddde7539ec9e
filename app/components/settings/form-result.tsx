/** What a settings form's action answers; `section` says which section shows the message. */
export type SettingsSection = 'tokens' | 'password' | 'sessions';

export interface SettingsResult {
  section: SettingsSection;
  error: string | null;
  notice: string | null;
  created: { token: string; name: string } | null;
  /** What a refused new-token form had, shown again (a page without JavaScript is drawn anew). */
  sentToken?: { name: string; expiresInDays: string } | null;
}

/** The error or notice of the last form sent, in the section it belongs to. */
export function FormResult({ result, section }: { result: SettingsResult | undefined; section: SettingsSection }) {
  if (!result || result.section !== section) return null;
  return (
    <>
      {result.error ? (
        <p className="alert" role="alert">
          {result.error}
        </p>
      ) : null}
      {result.notice ? (
        <p className="notice" role="status">
          {result.notice}
        </p>
      ) : null}
    </>
  );
}

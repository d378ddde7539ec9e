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
  return <FormMessages error={result.error} notice={result.notice} />;
}

/** A form's answer in words: what went wrong (an alert) or what was done (a status). */
export function FormMessages({ error, notice }: { error?: string | null; notice?: string | null }) {
  return (
    <>
      {error ? (
        <p className="alert" role="alert">
          {error}
        </p>
      ) : null}
      {notice ? (
        <p className="notice" role="status">
          {notice}
        </p>
      ) : null}
    </>
  );
}

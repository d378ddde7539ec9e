import { Form, useRevalidator } from '@remix-run/react';
import { type FormEvent, useEffect, useState } from 'react';
import { type CurrentShareSettings, type ExpiryChoice, ShareSettingsFields } from '~/components/share-settings-fields';
import { inFormWords, type SentShareSettings, SHARE_SETTINGS_LABELS } from '~/utils/form-errors';
import { formatExpiry } from '~/utils/format';
import { SETTINGS_NOT_YOURS, settingsFromForm } from '~/utils/owner-forms';
import { trpc } from '~/utils/trpc';

/** What the page's action answered to the form (without JavaScript). */
export interface SettingsAnswer {
  settingsError: string | null;
  settingsSaved: boolean;
  sent: SentShareSettings | null;
}

/**
 * The owner's link settings of a file: a plain POST to the page's action without JavaScript; with
 * it, saved through tRPC in place (ADR 0075), the page's facts then loaded again.
 */
export function LinkSettingsForm({
  fileId,
  settings,
  now,
  answer,
}: {
  fileId: string;
  settings: { current: CurrentShareSettings; expiry: { choices: ExpiryChoice[]; defaultValue: string } };
  now: number;
  answer: SettingsAnswer | undefined;
}) {
  const [inPlace, setInPlace] = useState<{ error: string | null; saved: boolean } | null>(null);
  const revalidator = useRevalidator();
  const update = trpc.files.updateShare.useMutation();
  // With JavaScript a refused form stays as it was, its password typed in; without it the page
  // is drawn anew and the password (never sent back) must be typed again.
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    setInPlace(null);
    update.mutate(
      { id: fileId, settings: settingsFromForm(new FormData(form)) },
      {
        onSuccess: () => {
          // The page stays: back to "keep" and a blank password, as a reload shows it, so that the
          // next save does not send the same change again.
          form.reset();
          setInPlace({ error: null, saved: true });
          revalidator.revalidate();
        },
        onError: (e) => {
          const words =
            e.data?.code === 'FORBIDDEN' ? SETTINGS_NOT_YOURS : inFormWords(e.message, SHARE_SETTINGS_LABELS);
          setInPlace({ error: words, saved: false });
        },
      },
    );
  };
  const error = inPlace ? inPlace.error : (answer?.settingsError ?? null);
  const saved = inPlace ? inPlace.saved : (answer?.settingsSaved ?? false);
  return (
    <Form method="post" className="card stack owner-settings" aria-label="Link settings" onSubmit={onSubmit}>
      <input type="hidden" name="intent" value="settings" />
      {error ? (
        <p className="alert" role="alert">
          {error}
        </p>
      ) : null}
      {saved ? (
        <p className="notice" role="status">
          Settings saved.
        </p>
      ) : null}
      {answer?.sent?.passwordTyped && !hydrated ? (
        <p className="muted">Type the new password again: it is never sent back to the page.</p>
      ) : null}
      <ShareSettingsFields
        choices={settings.expiry.choices}
        defaultValue={settings.expiry.defaultValue}
        current={settings.current}
        expiryText={formatExpiry(settings.current.expiresAt, now)}
        sent={answer?.sent ?? undefined}
      />
      <button type="submit">Save settings</button>
    </Form>
  );
}

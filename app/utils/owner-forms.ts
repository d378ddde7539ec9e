// The owner's forms on a file's page (rename, link settings): what they send and what they say
// when refused, the same whether the form is posted to the page's action (without JavaScript)
// or sent through tRPC in place (ADR 0075). Pure: the page uses it in the browser too.
import type { FieldLabels } from './form-errors';

/** The rename form's one field, as the page labels it. */
export const RENAME_LABELS: FieldLabels = { originalName: 'Name' };

/** In words for a person: the service's (and the API's) 403 says only "Forbidden". */
export const RENAME_NOT_YOURS = 'You can only rename your own files.';
export const SETTINGS_NOT_YOURS = 'You can only change the link settings of your own files.';

/**
 * The owner's settings form as a settings change: a blank expiry or password keeps what is set,
 * a blank limit means no limit, and "Remove the password" clears it.
 */
export function settingsFromForm(form: { get(name: string): unknown }): Record<string, unknown> {
  const text = (name: string) => {
    const value = form.get(name);
    return typeof value === 'string' ? value.trim() : '';
  };
  const settings: Record<string, unknown> = { maxDownloads: text('maxDownloads') === '' ? null : text('maxDownloads') };
  if (text('expiresIn') !== '') settings.expiresIn = text('expiresIn');
  if (form.get('removePassword')) settings.password = null;
  else if (form.get('password')) settings.password = form.get('password');
  return settings;
}

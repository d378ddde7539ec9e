// What the pages' forms say when the server refuses them. The services' messages are written
// for the API (`{"error":"File too large"}`, docs/api.md); a page says the same in the words
// of the form a person sees. Pure: the upload form uses it in the browser too (tus answers).
import { counted, formatLimit } from './format';

/** The API's message for a file over MAX_UPLOAD_BYTES (docs/api.md). */
const API_FILE_TOO_LARGE = 'File too large';

/** A file over the server's limit, with the limit in human units. */
export function tooLargeMessage(maxUploadBytes: number): string {
  return `This file is too large. Files on this server can be up to ${formatLimit(maxUploadBytes)}.`;
}

/** The labels a form shows, by the field names the services' messages start with. */
export type FieldLabels = Readonly<Record<string, string>>;

/** The share settings, as the upload form and the owner's settings form label them. */
export const SHARE_SETTINGS_LABELS: FieldLabels = {
  expiresAt: 'Expires',
  expiresIn: 'Expires',
  maxDownloads: 'Maximum downloads',
  password: 'Password',
};

/** The new-token form of /settings. */
export const NEW_TOKEN_LABELS: FieldLabels = { name: 'Name', expiresInDays: 'Expires after' };

/** The change-password form of /settings; "Password must…" is about the new one (the rules of any new password). */
export const CHANGE_PASSWORD_LABELS: FieldLabels = {
  currentPassword: 'Current password',
  newPassword: 'New password',
  confirmPassword: 'New password again',
  Password: 'New password',
};

/**
 * A service's message in the words of the form: the field name it starts with ("maxDownloads
 * must be at least 1") becomes the label the user sees ("Maximum downloads must be at least 1"),
 * and what only an API client can send ("or null") is said as the form offers it.
 */
export function inFormWords(message: string, labels: FieldLabels): string {
  const field = /^[A-Za-z]+(?= )/.exec(message)?.[0];
  let words =
    field !== undefined && Object.hasOwn(labels, field) ? `${labels[field]}${message.slice(field.length)}` : message;
  words = words.replace(/\bThe ([A-Za-z]+) field\b/, (found, name: string) =>
    Object.hasOwn(labels, name) ? `The “${labels[name]}” field` : found,
  );
  words = words.replace(/, or null for no expiry$/, ', or no expiry');
  // "more than the 1 downloads so far": the count with its noun in the right number.
  return words.replace(
    /\bthe (\d+) downloads so far\b/,
    (_, count: string) => `the ${counted(Number(count), 'download')} so far`,
  );
}

/**
 * The login form's refusal. A field left out or blank (the service's "Password is required", or
 * "… must be a string" for a form sent without the field: null) asks for both, as the form has
 * only those two; the others (a wrong password, a throttle, a name over the length) are words already.
 */
export function loginErrorInWords(status: number, message: string): string {
  if (status === 400 && /^(Username|Password) (is required|must be a string)$/.test(message))
    return 'Enter your username and password.';
  return message;
}

/** An upload's refusal, as the upload page says it (without JavaScript, and with it from the resumable upload's answer). */
export function uploadErrorInWords(status: number | null, message: string, maxUploadBytes: number): string {
  if (status === 413 && message === API_FILE_TOO_LARGE) return tooLargeMessage(maxUploadBytes);
  return inFormWords(message, SHARE_SETTINGS_LABELS);
}

/**
 * What a refused form had in its share-settings fields, to show them again (a form refused
 * without JavaScript comes back as a new page). Never the password: a page does not carry one
 * back; it says only that one was typed. Values are cut short: they are shown, not trusted.
 */
export interface SentShareSettings {
  expiresIn?: string;
  maxDownloads?: string;
  removePassword?: boolean;
  /** A password was typed: the form asks for it again. */
  passwordTyped: boolean;
}

const SENT_VALUE_MAX = 64;

export function sentShareSettings(value: (name: string) => unknown): SentShareSettings {
  const text = (name: string) => {
    const found = value(name);
    return typeof found === 'string' ? found.slice(0, SENT_VALUE_MAX) : undefined;
  };
  const password = value('password');
  return {
    expiresIn: text('expiresIn'),
    maxDownloads: text('maxDownloads'),
    removePassword: Boolean(value('removePassword')),
    passwordTyped: typeof password === 'string' && password !== '',
  };
}

import type { SentShareSettings } from '~/utils/form-errors';

export interface ExpiryChoice {
  value: string;
  label: string;
}

export interface CurrentShareSettings {
  expiresAt: string | null;
  maxDownloads: number | null;
  downloads: number;
  hasPassword: boolean;
}

/**
 * The share settings of a form: expiry, download limit, password. Plain form fields, so they
 * work without JavaScript; in an upload form they must come before the file input (the server
 * reads them before the file part). With `current`, they edit a file's settings: the expiry
 * and password are kept unless changed.
 */
export function ShareSettingsFields({
  choices,
  defaultValue,
  current,
  expiryText,
  sent,
}: {
  choices: ExpiryChoice[];
  defaultValue: string;
  current?: CurrentShareSettings;
  /** How the current expiry reads ("in 3 days"), for the "keep" choice. */
  expiryText?: string;
  /** What a refused form had (never its password): shown again instead of the defaults. */
  sent?: SentShareSettings;
}) {
  const expiryDefault = sent?.expiresIn ?? (current ? '' : defaultValue);
  const maxDownloadsDefault = sent?.maxDownloads ?? current?.maxDownloads ?? '';
  return (
    <fieldset className="share-settings">
      <legend>{current ? 'Link settings' : 'Link options'}</legend>
      <label>
        <span>Expires</span>
        <select name="expiresIn" defaultValue={expiryDefault}>
          {current ? <option value="">{`Keep (${expiryText ?? 'never'})`}</option> : null}
          {choices.map((choice) => (
            <option key={choice.value} value={choice.value}>
              {current && choice.value !== 'never' ? `${choice.label} from now` : choice.label}
            </option>
          ))}
        </select>
      </label>
      <label>
        <span>Maximum downloads</span>
        <input
          type="number"
          name="maxDownloads"
          min={current ? current.downloads + 1 : 1}
          step={1}
          inputMode="numeric"
          placeholder="No limit"
          defaultValue={maxDownloadsDefault}
        />
      </label>
      <label>
        <span>{current?.hasPassword ? 'New password' : 'Password'}</span>
        <input
          type="password"
          name="password"
          minLength={4}
          autoComplete="new-password"
          placeholder={current?.hasPassword ? 'Keep the current one' : 'None'}
        />
      </label>
      {current?.hasPassword ? (
        <label className="checkbox">
          <input type="checkbox" name="removePassword" value="1" defaultChecked={sent?.removePassword ?? false} />
          <span>Remove the password</span>
        </label>
      ) : null}
    </fieldset>
  );
}

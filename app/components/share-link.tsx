import { CopyButton } from './copy-button';

/**
 * A share address as selectable text — without JavaScript that is how it gets copied — and a
 * copy button once JavaScript runs. `label` names it for screen readers (several on a page).
 */
export function ShareLink({ url, label, copyLabel }: { url: string; label: string; copyLabel?: string }) {
  return (
    <span className="share-link">
      <input readOnly value={url} aria-label={label} onFocus={(event) => event.currentTarget.select()} />
      <CopyButton text={url} label={copyLabel} />
    </span>
  );
}

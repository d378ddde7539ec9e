import { useEffect, useState } from 'react';

/** Copies text to the clipboard; rendered only once JavaScript runs (it cannot work without). */
export function CopyButton({ text, label = 'Copy link' }: { text: string; label?: string }) {
  const [hydrated, setHydrated] = useState(false);
  const [copied, setCopied] = useState(false);
  useEffect(() => setHydrated(true), []);
  if (!hydrated) return null;
  return (
    <button
      type="button"
      className="secondary small"
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(text);
          setCopied(true);
          setTimeout(() => setCopied(false), 2000);
        } catch {
          window.prompt('Copy this link:', text);
        }
      }}
    >
      {copied ? 'Copied' : label}
    </button>
  );
}

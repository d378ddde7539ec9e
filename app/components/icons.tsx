// Small drawn icons (inline SVG in the text colour, as app/components/file-type-icon.tsx draws a
// file's kind): an emoji would show as an empty box where no emoji font is installed (ADR 0068).
import type { ReactNode } from 'react';

function Icon({ size, children }: { size: number; children: ReactNode }) {
  return (
    <svg
      className="icon"
      viewBox="0 0 24 24"
      width={size}
      height={size}
      aria-hidden="true"
      focusable="false"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      strokeLinecap="round"
      strokeLinejoin="round"
    >
      {children}
    </svg>
  );
}

/** A padlock. Decorative: the words beside it, or its holder's label, say what it means. */
export function LockIcon({ size = 16 }: { size?: number }) {
  return (
    <Icon size={size}>
      <rect x="5" y="11" width="14" height="10" rx="2" />
      <path d="M8 11V7a4 4 0 0 1 8 0v4" />
    </Icon>
  );
}

/** A folder. Decorative: its name follows it. */
export function FolderIcon({ size = 16 }: { size?: number }) {
  return (
    <Icon size={size}>
      <path d="M3 6.5A1.5 1.5 0 0 1 4.5 5h4l2 2.5h9A1.5 1.5 0 0 1 21 9v9.5a1.5 1.5 0 0 1-1.5 1.5h-15A1.5 1.5 0 0 1 3 18.5z" />
    </Icon>
  );
}

/** The padlock beside something that opens only with its password, named for a screen reader. */
export function PasswordLock() {
  return (
    <span className="lock" role="img" aria-label="Password-protected" title="Password-protected">
      <LockIcon />
    </span>
  );
}

import type { ReactNode, RefObject } from 'react';
import { counted, formatBytes } from '~/utils/format';
import type { SentFile } from '~/utils/request-upload.client';

/** "Thank you: 2 files sent." and what they were: the answer with or without JavaScript. */
export function SentFiles({
  files,
  children,
  sectionRef,
}: {
  files: SentFile[];
  children?: ReactNode;
  /** Set when the answer replaces the form in the page: it takes the focus the form's button had. */
  sectionRef?: RefObject<HTMLElement>;
}) {
  return (
    <section className="card stack" aria-label="Sent" ref={sectionRef} tabIndex={sectionRef ? -1 : undefined}>
      <p role="status">
        <strong>Thank you: {counted(files.length, 'file')} sent.</strong>
      </p>
      <ul className="file-request-sent">
        {files.map((file, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: two files may share a name; the list only grows
          <li key={index}>
            {file.originalName} <span className="muted">{`(${formatBytes(file.size)})`}</span>
          </li>
        ))}
      </ul>
      {children}
    </section>
  );
}

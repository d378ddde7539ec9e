import { useEffect, useRef } from 'react';
import { counted } from '~/utils/format';
import type { SentFile } from '~/utils/request-upload.client';
import { FileRows, type FileRow, whyNotSent } from './file-rows';
import { SentFiles } from './sent-files';

/**
 * What the guest's upload ended with, in place of the form: what was sent, and what was not and
 * why. "Send more files" follows a success; after a refusal the page says why and offers to try
 * again, unless the request takes nothing more (closed, expired, full, gone).
 */
export function RequestAnswer({
  rows,
  sentInVisit,
  takesMore,
  onTryAgain,
  onSendMore,
}: {
  rows: FileRow[];
  sentInVisit: SentFile[];
  takesMore: boolean;
  onTryAgain: () => void;
  onSendMore: () => void;
}) {
  const answerRef = useRef<HTMLElement>(null);
  // The answer replaces the form and its focused button: the focus moves to it, and a screen
  // reader reads it (a live region put in the page with its words already in is not always heard).
  useEffect(() => {
    answerRef.current?.focus();
  }, []);
  const rowsList = <FileRows rows={rows} onRemove={null} />;
  const notSent = rows.filter((row) => row.state !== 'sent');
  const next = takesMore ? (
    <p>
      {notSent.length > 0 ? (
        <button type="button" className="secondary" onClick={onTryAgain}>
          Try again
        </button>
      ) : (
        <button type="button" className="secondary" onClick={onSendMore}>
          Send more files
        </button>
      )}
    </p>
  ) : null;
  if (sentInVisit.length === 0)
    return (
      <section className="card stack" aria-label="Not sent" ref={answerRef} tabIndex={-1}>
        <p className="alert" role="alert">
          {`No file was sent. ${whyNotSent(notSent)}`}
        </p>
        {rowsList}
        {next}
      </section>
    );
  return (
    <SentFiles files={sentInVisit} sectionRef={answerRef}>
      {notSent.length > 0 ? (
        <>
          <p className="alert" role="alert">
            {`${counted(notSent.length, 'file was', 'files were')} not sent. ${whyNotSent(notSent)}`}
          </p>
          {rowsList}
        </>
      ) : null}
      {next}
    </SentFiles>
  );
}

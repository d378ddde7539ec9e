import { type FormEvent, useEffect, useRef, useState } from 'react';
import { type RequestUploads, type SentFile, sendToRequest } from '~/utils/request-upload.client';
import { type FileRow, waitingRow } from './file-rows';

type Phase = 'choosing' | 'sending' | 'finished';

/**
 * The guest's files on their way to a request: chosen (the input, a drop, a paste), sent one by
 * one as resumable uploads, and how each ended; what this guest sent in this visit.
 */
export function useRequestUpload(requestId: string, serverError: string | null) {
  const inputRef = useRef<HTMLInputElement>(null);
  const uploadsRef = useRef<RequestUploads | null>(null);
  /** The page's JavaScript runs: the drop zone replaces the plain file input. */
  const [scripted, setScripted] = useState(false);
  const [phase, setPhase] = useState<Phase>('choosing');
  const [rows, setRows] = useState<FileRow[]>([]);
  const [sentInVisit, setSentInVisit] = useState<SentFile[]>([]);
  /** The name and note typed, kept for the next files once an answer has replaced the form. */
  const [guest, setGuest] = useState({ name: '', note: '' });
  const [error, setError] = useState<string | null>(serverError);
  /** False once the server said the request is gone (unknown, closed, expired, full): no more files to offer. */
  const [takesMore, setTakesMore] = useState(true);

  useEffect(() => {
    setScripted(true);
    // Files chosen in the plain input before the JavaScript ran are not lost.
    const early = Array.from(inputRef.current?.files ?? []);
    if (early.length > 0) setRows(early.map(waitingRow));
    // Leaving the page (or this form) stops the upload under way and deletes it: it cannot be
    // carried on from another page, and it would hold its place in the request for a day.
    const leave = () => uploadsRef.current?.stop();
    window.addEventListener('pagehide', leave);
    return () => {
      window.removeEventListener('pagehide', leave);
      leave();
    };
  }, []);

  // A pasted file (a screenshot copied a moment ago) joins the list, as a dropped one does.
  useEffect(() => {
    if (phase !== 'choosing') return;
    const onPaste = (event: ClipboardEvent) => {
      const files = Array.from(event.clipboardData?.files ?? []);
      if (files.length === 0) return;
      event.preventDefault();
      setError(null);
      setRows((current) => [...current, ...files.map(waitingRow)]);
    };
    window.addEventListener('paste', onPaste);
    return () => window.removeEventListener('paste', onPaste);
  }, [phase]);

  const add = (files: File[]) => {
    if (files.length === 0) return;
    setError(null);
    setRows((current) => [...current, ...files.map(waitingRow)]);
  };

  const drop = (dataTransfer: DataTransfer) => {
    if (phase !== 'choosing') return;
    const items = Array.from(dataTransfer.items ?? []);
    if (items.some((item) => item.webkitGetAsEntry?.()?.isDirectory)) {
      setError('A folder cannot be sent here: open it and drop or choose the files in it.');
      return;
    }
    add(Array.from(dataTransfer.files));
  };

  const send = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (rows.length === 0) {
      setError('Choose at least one file to send.');
      return;
    }
    const form = new FormData(event.currentTarget);
    const typed = { name: String(form.get('name') ?? '').trim(), note: String(form.get('note') ?? '').trim() };
    setGuest(typed);
    setError(null);
    setPhase('sending');
    // The rows as they stand: each change is shown as a copy.
    const current = rows.map((row) => ({ ...row }));
    const update = (index: number, change: Partial<FileRow>) => {
      current[index] = { ...current[index], ...change };
      setRows([...current]);
    };
    uploadsRef.current = sendToRequest(
      requestId,
      current.map((row) => row.file),
      typed,
      {
        onProgress: (index, sent) => update(index, { sent, state: 'sending' }),
        onRetrying: (index) => update(index, { state: 'retrying' }),
        onSent: (index, file) => {
          update(index, { sent: current[index].file.size, state: 'sent' });
          setSentInVisit((earlier) => [...earlier, file]);
        },
        onRefused: (index, status, message) => {
          update(index, { state: 'failed', message });
          if (status === 404 || status === 410) setTakesMore(false);
        },
        onSkipped: (index, message) => update(index, { state: 'not sent', message }),
        onFinished: () => {
          uploadsRef.current = null;
          setPhase('finished');
        },
      },
    );
  };

  const sendMore = () => {
    setRows([]);
    setPhase('choosing');
  };

  /** Back to the form with the files that did not go, to send again or to remove (one too large). */
  const tryAgain = () => {
    setRows((current) => current.filter((row) => row.state !== 'sent').map((row) => waitingRow(row.file)));
    setError(null);
    setPhase('choosing');
  };

  const remove = (index: number) => setRows((current) => current.filter((_, at) => at !== index));

  return {
    inputRef,
    scripted,
    phase,
    rows,
    sentInVisit,
    guest,
    error,
    takesMore,
    add,
    drop,
    send,
    sendMore,
    tryAgain,
    remove,
  };
}

import { useState } from 'react';
import type { FileRow } from '../upload-file-list';

export interface Progress {
  sent: number;
  total: number;
}

export type Phase = 'idle' | 'uploading' | 'paused' | 'retrying';

/** What the upload form shows of the upload under way: its phase, progress, rows and words. */
export function useUploadStatus(serverError: string | null) {
  const [progress, setProgress] = useState<Progress | null>(null);
  const [rows, setRows] = useState<FileRow[] | null>(null);
  const [collectionLink, setCollectionLink] = useState<string | null>(null);
  const [phase, setPhase] = useState<Phase>('idle');
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(serverError);
  return {
    progress,
    setProgress,
    rows,
    setRows,
    collectionLink,
    setCollectionLink,
    phase,
    setPhase,
    notice,
    setNotice,
    error,
    setError,
  };
}

export type UploadStatus = ReturnType<typeof useUploadStatus>;

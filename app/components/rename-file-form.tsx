import { Form, useRevalidator } from '@remix-run/react';
import { type FormEvent, useState } from 'react';
import { inFormWords } from '~/utils/form-errors';
import { RENAME_LABELS, RENAME_NOT_YOURS } from '~/utils/owner-forms';
import { trpc } from '~/utils/trpc';

/** What the form says after a rename done in place. */
interface InPlace {
  error: string | null;
  renamed: boolean;
  sentName: string | null;
}

/**
 * The owner's "Rename" form on a file's page: a plain POST, so it works without JavaScript
 * (the action's answer is `error`, `renamed` and `sentName`). With JavaScript the rename goes
 * through tRPC in place (ADR 0075): the page shows the new name at once (`onNameShown`), and the
 * old one again if it is refused. The field shows the current name, or what was typed when the
 * name was refused.
 */
export function RenameFileForm({
  fileId,
  currentName,
  error,
  renamed,
  sentName,
  onNameShown,
}: {
  fileId: string;
  currentName: string;
  error: string | null;
  renamed: boolean;
  sentName: string | null;
  /** The name the page shows meanwhile; null: the one it loaded. */
  onNameShown: (name: string | null) => void;
}) {
  const [inPlace, setInPlace] = useState<InPlace | null>(null);
  const revalidator = useRevalidator();
  const rename = trpc.files.rename.useMutation();
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const name = new FormData(event.currentTarget).get('originalName');
    const typed = typeof name === 'string' ? name : '';
    onNameShown(typed);
    setInPlace({ error: null, renamed: false, sentName: typed });
    rename.mutate(
      { id: fileId, originalName: typed },
      {
        onSuccess: (file) => {
          // The name as kept (cleaned as an upload's is); the loader brings the rest of the page.
          onNameShown(file.originalName);
          setInPlace({ error: null, renamed: true, sentName: null });
          revalidator.revalidate();
        },
        onError: (e) => {
          onNameShown(null);
          const words = e.data?.code === 'FORBIDDEN' ? RENAME_NOT_YOURS : inFormWords(e.message, RENAME_LABELS);
          setInPlace({ error: words, renamed: false, sentName: typed });
        },
      },
    );
  };
  const shown = inPlace ?? { error, renamed, sentName };
  const value = shown.sentName ?? currentName;
  return (
    <Form method="post" className="card stack rename-file" aria-label="Rename" onSubmit={onSubmit}>
      <input type="hidden" name="intent" value="rename" />
      {shown.error ? (
        <p className="alert" role="alert">
          {shown.error}
        </p>
      ) : null}
      {shown.renamed ? (
        <p className="notice" role="status">
          File renamed.
        </p>
      ) : null}
      <label>
        Name
        {/* Keyed by the value: after a rename with JavaScript the field shows the new name. */}
        <input key={value} type="text" name="originalName" defaultValue={value} required maxLength={1024} />
      </label>
      <p className="muted">The link and the content stay the same; the page and downloads show the new name.</p>
      <button type="submit">Rename</button>
    </Form>
  );
}

import { Form } from '@remix-run/react';

/**
 * The owner's "Rename" form on a file's page: a plain POST, so it works without JavaScript.
 * The field shows the current name, or what was typed when the name was refused.
 */
export function RenameFileForm({
  currentName,
  error,
  renamed,
  sentName,
}: {
  currentName: string;
  error: string | null;
  renamed: boolean;
  sentName: string | null;
}) {
  const value = sentName ?? currentName;
  return (
    <Form method="post" className="card stack rename-file" aria-label="Rename">
      <input type="hidden" name="intent" value="rename" />
      {error ? (
        <p className="alert" role="alert">
          {error}
        </p>
      ) : null}
      {renamed ? (
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

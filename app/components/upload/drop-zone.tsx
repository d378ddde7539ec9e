import { type DragEvent, type RefObject, useState } from 'react';
import type { ChosenFile } from '~/utils/chosen-files.client';
import { formatBytes } from '~/utils/format';
import { limitInWords, type UploadAllowance } from './upload-words';

/**
 * The upload form's file input, in a zone that takes a drop (with JavaScript), with the limit and
 * what was chosen.
 */
export function DropZone({
  input,
  scripted,
  busy,
  allowance,
  chosen,
  onChoose,
  onDrop,
}: {
  input: RefObject<HTMLInputElement>;
  scripted: boolean;
  busy: boolean;
  allowance: UploadAllowance;
  chosen: ChosenFile[];
  onChoose: (files: FileList | null) => void;
  onDrop: (dataTransfer: DataTransfer) => void;
}) {
  const [dragging, setDragging] = useState(false);
  const drop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    if (!busy) onDrop(event.dataTransfer);
  };
  const chosenBytes = chosen.reduce((sum, { file }) => sum + file.size, 0);
  return (
    <label
      className={`dropzone${dragging ? ' dragging' : ''}`}
      onDragOver={(e) => {
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={drop}
    >
      <span className="dropzone-title">
        {/* Dropping and pasting are the page's JavaScript: without it, only the file input is promised. */}
        {scripted
          ? 'Choose a file or several, or drop or paste them here (a folder can be dropped too)'
          : 'Choose a file or several'}
      </span>
      <span className="muted upload-limit">{limitInWords(allowance)}</span>
      <input
        ref={input}
        type="file"
        name="file"
        multiple
        required={!scripted}
        disabled={busy}
        onChange={(e) => onChoose(e.currentTarget.files)}
      />
      {chosen.length === 1 ? (
        <span className="muted chosen-files">
          {chosen[0].path} · {formatBytes(chosen[0].file.size)}
        </span>
      ) : null}
      {chosen.length > 1 ? (
        <span className="muted chosen-files">
          {chosen.length} files · {formatBytes(chosenBytes)}
        </span>
      ) : null}
    </label>
  );
}

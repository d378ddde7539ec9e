/** Longer than this after its last dot, a name's end is not taken for an extension. */
const LONGEST_EXTENSION = 10;

/**
 * A file's name, its extension (".pdf") kept whole and in view (ADR 0068): a long name breaks
 * between words first, anywhere only when one word is wider than the line, and never inside the
 * extension; where the name has one line (a gallery card) its middle is cut, not its end.
 */
export function FileName({ name }: { name: string }) {
  const dot = name.lastIndexOf('.');
  const hasExtension = dot > 0 && name.length - dot <= LONGEST_EXTENSION + 1;
  return (
    <span className="file-name">
      <span className="file-name-stem">{hasExtension ? name.slice(0, dot) : name}</span>
      {hasExtension ? <span className="file-name-extension">{name.slice(dot)}</span> : null}
    </span>
  );
}

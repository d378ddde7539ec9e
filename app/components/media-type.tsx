import { Fragment } from 'react';

/**
 * A media type as text that may wrap after its "/", dots and "+" (a browser breaks only after
 * its hyphens otherwise), so that a long one ("application/vnd.openxmlformats-officedocument…")
 * wraps between its words in a narrow column instead of inside one.
 */
export function MediaType({ type }: { type: string }) {
  const parts = type.split(/(?<=[/.+])/);
  let offset = 0;
  return (
    <>
      {parts.map((part) => {
        const at = offset;
        offset += part.length;
        return (
          <Fragment key={at}>
            {at > 0 ? <wbr /> : null}
            {part}
          </Fragment>
        );
      })}
    </>
  );
}

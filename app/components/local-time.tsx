import { useEffect, useState } from 'react';
import { formatUtcDate } from '~/utils/format';

/** A date shown in UTC by the server, then in the reader's own locale and time zone once JavaScript runs. */
export function LocalTime({ iso }: { iso: string }) {
  const [text, setText] = useState(() => formatUtcDate(iso));
  useEffect(() => {
    setText(new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso)));
  }, [iso]);
  return <time dateTime={iso}>{text}</time>;
}

// Under a file a guest sent through a file request (ADR 0048): who sent it and for which request,
// "from Carol, for “Tax papers”", and the note they left. All of it text as typed: React escapes it.

interface Received {
  request?: { title: string } | null;
  receivedFrom?: { name: string | null; note: string | null } | null;
}

/** What the line says: "from Carol, for “Tax papers”", "from Carol" or "for “Tax papers”"; null for one's own file. */
function receivedInWords({ request, receivedFrom }: Received): string | null {
  const parts: string[] = [];
  if (receivedFrom?.name) parts.push(`from ${receivedFrom.name}`);
  if (request) parts.push(`for “${request.title}”`);
  return parts.length > 0 ? parts.join(', ') : null;
}

export function ReceivedFrom({ file }: { file: Received }) {
  const words = receivedInWords(file);
  const note = file.receivedFrom?.note ?? null;
  if (!words && !note) return null;
  return (
    <span className="received-from muted">
      {words}
      {note ? (
        <q className="received-note" title={note}>
          {note}
        </q>
      ) : null}
    </span>
  );
}

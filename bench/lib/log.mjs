// Progress on stderr (stdout is the table and the JSON) and the bench's checks.
export const log = (message) => process.stderr.write(`bench: ${message}\n`);
export function assert(condition, message) {
  if (!condition) throw new Error(message);
}

// What the new-file-request form of /requests sends and says (ADR 0048), the same whether the
// page's action or an in-place call (/trpc, with JavaScript) takes it. Pure: the browser uses it too.
import { readSize } from './format';

/** What the byte limit's field says it takes. */
export const SIZE_HINT = 'a size such as 500 MB or 2 GiB';

/** The byte limit's refusal, said before anything is sent. */
const NOT_A_SIZE = `Most data in all must be ${SIZE_HINT}.`;

/** Said for a request of another account (the API's terse "Forbidden" is for scripts). */
export const NOT_YOUR_REQUEST = 'You can only change your own file requests.';

/**
 * The byte limit typed in the form, in bytes, in either unit system (ADR 0065): it reads back in
 * the units it was typed in. Blank: no limit; null: not a size.
 */
function bytesTyped(value: FormDataEntryValue | null): number | undefined | null {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const bytes = readSize(value);
  return bytes === null || bytes < 1 ? null : bytes;
}

/** The form's fields as the service takes them, or the words of a byte limit that is not a size. */
export function newRequestInput(form: FormData): { input: Record<string, unknown> } | { error: string } {
  const maxBytes = bytesTyped(form.get('maxSize'));
  if (maxBytes === null) return { error: NOT_A_SIZE };
  return {
    input: {
      title: form.get('title') ?? '',
      message: form.get('message') ?? '',
      expiresIn: form.get('expiresIn') ?? undefined,
      maxFiles: form.get('maxFiles') ?? undefined,
      maxBytes,
      password: form.get('password') ?? undefined,
      requireName: form.get('requireName') === 'on',
    },
  };
}

/** A refusal in the words of the form: the field is named as its label is. */
export function requestErrorInWords(message: string): string {
  return message.replace(/^title/, 'Title');
}

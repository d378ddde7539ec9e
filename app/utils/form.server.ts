import { data } from '@remix-run/node';

/**
 * The form a page posted. A body that is no form (none, or another Content-Type: a script's
 * mistake, never the page's) is a 400 page that says so, not the 500 of a failed formData().
 */
export async function readForm(request: Request): Promise<FormData> {
  try {
    return await request.formData();
  } catch {
    throw data({ message: 'This request did not carry the form. Send it again from the page.' }, { status: 400 });
  }
}

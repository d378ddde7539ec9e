import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { redirect } from '@remix-run/node';
import { pageErrorFrom } from '~/utils/errors.server';
import { readForm } from '~/utils/form.server';

// The settings page's "Download ShareX config" button posts the new token here (it is shown
// only once, so the file is made then). A resource route: the answer is the .sxcu file itself,
// or a one-line message with the error's status.
export async function action({ request, context }: ActionFunctionArgs) {
  if (!context.ctx.user) throw redirect(`/login?redirectTo=${encodeURIComponent('/settings')}`);
  const form = await readForm(request);
  try {
    const config = await context.services.sharexConfigFor(context.ctx, form.get('token'));
    return new Response(`${JSON.stringify(config, null, 2)}\n`, {
      headers: {
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Disposition': 'attachment; filename="filesharing.sxcu"',
        // It holds a token: no cache may keep it.
        'Cache-Control': 'no-store',
      },
    });
  } catch (error) {
    const { status, message } = pageErrorFrom(context, error);
    return new Response(`${message}\n`, { status, headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
  }
}

/**
 * A GET of this address (the download reloaded, retried from the browser's downloads list, a
 * bookmark) cannot make the file: the token it holds is shown only once, and only the POST
 * carries it. It leads to where a config is made, the settings page (its token form), or to
 * log in first. Not a 404 page: this route must stay a resource route for the POST to answer
 * the .sxcu file itself, and a resource route's thrown 404 went out as bare JSON
 * (`{"message":"Page not found."}`) instead of the not-found page.
 */
export function loader({ context }: LoaderFunctionArgs) {
  if (!context.ctx.user) throw redirect(`/login?redirectTo=${encodeURIComponent('/settings')}`);
  throw redirect('/settings');
}

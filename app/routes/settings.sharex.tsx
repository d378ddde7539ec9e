import type { ActionFunctionArgs } from '@remix-run/node';
import { json, redirect } from '@remix-run/node';
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

export function loader() {
  throw json({ message: 'Page not found.' }, { status: 404 });
}

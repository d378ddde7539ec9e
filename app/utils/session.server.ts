import type { AppLoadContext } from '@remix-run/node';
import { redirect } from '@remix-run/node';

/** The signed-in user, or a redirect to the login page that comes back here afterwards. */
export function requireUserPage(context: AppLoadContext, request: Request) {
  const user = context.ctx.user;
  if (!user) {
    const url = new URL(request.url);
    throw redirect(`/login?redirectTo=${encodeURIComponent(url.pathname + url.search)}`);
  }
  return user;
}

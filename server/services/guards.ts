// The guards at the top of every protected service: who may call it. `requireX` throws rather
// than returning null. A module of their own because the session and the user services both use them.
import type { AuthUser, ServiceContext } from '../context';
import { AppError } from '../utilities/errors';

/** Throws UNAUTHORIZED unless a user is signed in; the one guard every protected service uses. */
export function requireUser(ctx: ServiceContext): AuthUser {
  if (!ctx.user) throw new AppError('UNAUTHORIZED', 'Unauthorized');
  return ctx.user;
}

/** The signed-in user, when signed in with a session: tokens, sessions and the password are managed only that way. */
export function requireSessionUser(ctx: ServiceContext): AuthUser {
  const user = requireUser(ctx);
  if (ctx.authMethod === 'token')
    throw new AppError(
      'FORBIDDEN',
      'This needs a login session: an API token cannot manage tokens, sessions or the password',
    );
  return user;
}

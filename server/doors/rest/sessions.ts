// Sessions: logging in and out, and the caller's live sessions (with a session only, like the
// tokens); the routes and their OpenAPI description side by side.
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import express, { type Router } from 'express';
import { z } from 'zod';
import { clearedSessionCookie, sessionCookie } from '../../auth/cookie';
import { loginSchema } from '../../schemas';
import { listSessions, login, logout, revokeAllSessions, revokeSession } from '../../services/sessions';
import { TwoFactorRequiredError } from '../../services/two-factor';
import { ErrorBody, errors, idParam, isoDate, json, Ok, SESSION_ONLY, User } from './openapi-parts';
import { handler, requireSession } from './routing';
import { twoFactorCode } from './two-factor';

/**
 * Logout always answers 200 {"ok":true} (docs/api.md), whatever else the request carries: it
 * is mounted before the token check, and revokes the session of the cookie it clears (read
 * beside a Bearer too).
 */
export function logoutRoute(router: Router): void {
  router.post(
    '/auth/logout',
    handler(async (_req, res) => {
      const ctx = res.locals.ctx;
      await logout(ctx, res.locals.sessionToken);
      res.append('Set-Cookie', clearedSessionCookie(ctx.config));
      res.status(200).json({ ok: true });
    }),
  );
}

export function loginRoute(router: Router): void {
  // Body parsers are scoped to the one route that takes a small body (never global: remix#3616).
  const loginBody = [express.json({ limit: '16kb' }), express.urlencoded({ extended: false, limit: '16kb' })];

  router.post(
    '/auth/login',
    ...loginBody,
    handler(async (req, res) => {
      const ctx = res.locals.ctx;
      const session = await login(ctx, req.body ?? {}).catch((error: unknown) => {
        // The password was right: the client is told to ask for a code (docs/api.md).
        if (error instanceof TwoFactorRequiredError)
          res.status(401).json({ error: error.message, twoFactorRequired: true });
        else throw error;
      });
      if (!session) return;
      res.append('Set-Cookie', sessionCookie(ctx.config, session.token, session.maxAgeSeconds));
      // Wrong two-factor codes tried since the last sign-in, told this once (ADR 0058, docs/api.md).
      res
        .status(200)
        .json(session.wrongCodes ? { user: session.user, wrongCodes: session.wrongCodes } : { user: session.user });
    }),
  );
}

export function sessionRoutes(router: Router): void {
  router.get(
    '/sessions',
    requireSession,
    handler(async (_req, res) => {
      res.status(200).json({ sessions: await listSessions(res.locals.ctx) });
    }),
  );

  router.delete(
    '/sessions/:id',
    requireSession,
    handler(async (req, res) => {
      const ctx = res.locals.ctx;
      const { wasCurrent } = await revokeSession(ctx, req.params.id);
      if (wasCurrent) res.append('Set-Cookie', clearedSessionCookie(ctx.config));
      res.status(200).json({ ok: true });
    }),
  );

  router.delete(
    '/sessions',
    requireSession,
    handler(async (_req, res) => {
      const ctx = res.locals.ctx;
      const { revoked } = await revokeAllSessions(ctx);
      res.append('Set-Cookie', clearedSessionCookie(ctx.config));
      res.status(200).json({ ok: true, revoked });
    }),
  );
}

// The login's optional two-factor `code` (ADR 0043).
const loginWithCodeSchema = loginSchema.extend({
  code: twoFactorCode.optional().openapi({
    description: 'Needed when the user has two-factor codes on: a current code or an unused recovery code.',
  }),
});

const Session = z
  .object({
    id: z.string(),
    createdAt: isoDate,
    lastSeenAt: isoDate,
    expiresAt: isoDate,
    browser: z.string().openapi({ example: 'Firefox 133 on Linux' }),
    address: z.string().nullable(),
    current: z.boolean().openapi({ description: 'The session this request came with.' }),
    signInMethod: z.enum(['password', 'oidc']).nullable().openapi({
      description:
        'How the session began: a password (with its two-factor code, if any) or the OpenID Connect provider; null for sessions from before this was recorded.',
    }),
    signedInVia: z.string().nullable().openapi({
      description:
        'For a session begun at the provider: its name (OIDC_DISPLAY_NAME), shown as "via Acme"; otherwise null.',
      example: 'Acme',
    }),
  })
  .strict()
  .openapi('Session');

/** POST /auth/login and /auth/logout. */
export function authPaths(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'post',
    path: '/auth/login',
    tags: ['Session'],
    summary: 'Log in: sets the session cookie',
    security: [],
    request: {
      body: {
        content: {
          ...json(loginWithCodeSchema),
          'application/x-www-form-urlencoded': { schema: loginWithCodeSchema },
        },
      },
    },
    responses: {
      200: {
        description:
          "Logged in; Set-Cookie carries the session. `wrongCodes` is there when wrong two-factor codes locked the account's code step since its last sign-in (told once, ADR 0058)",
        content: json(
          z.object({
            user: User,
            wrongCodes: z
              .object({
                count: z
                  .number()
                  .int()
                  .positive()
                  .openapi({ description: 'Wrong codes that locked the code step, all lock-outs added up' }),
                lastAt: isoDate.openapi({ description: 'When the last lock-out began' }),
              })
              .optional(),
          }),
        ),
      },
      ...errors(400, 429),
      403: {
        description:
          'The account is disabled; or logging in with a password is turned off (PASSWORD_LOGIN=off: sign in on the login page with the provider; API tokens still work)',
        content: json(ErrorBody),
      },
      401: {
        description:
          'Wrong username or password; or, with two-factor codes on, a code missing or wrong (then `twoFactorRequired` is true)',
        content: json(ErrorBody.extend({ twoFactorRequired: z.literal(true).optional() })),
      },
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/auth/logout',
    tags: ['Session'],
    summary: 'Log out: revokes this session and clears the cookie (always succeeds)',
    security: [],
    responses: { 200: { description: 'Logged out', content: json(Ok) }, ...errors() },
  });
}

export function sessionPaths(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/sessions',
    tags: ['Account'],
    summary: 'Your live sessions, most recently seen first',
    security: SESSION_ONLY,
    responses: {
      200: { description: 'Your sessions', content: json(z.object({ sessions: z.array(Session) })) },
      ...errors(401, 403),
    },
  });
  registry.registerPath({
    method: 'delete',
    path: '/sessions/{id}',
    tags: ['Account'],
    summary: 'Log one session out (this one too: then the cookie is cleared)',
    security: SESSION_ONLY,
    request: { params: idParam('session') },
    responses: { 200: { description: 'Logged out', content: json(Ok) }, ...errors(401, 403, 404) },
  });
  registry.registerPath({
    method: 'delete',
    path: '/sessions',
    tags: ['Account'],
    summary: 'Log out everywhere: every session of yours, this one included',
    security: SESSION_ONLY,
    responses: {
      200: {
        description: 'Logged out everywhere',
        content: json(z.object({ ok: z.literal(true), revoked: z.number().int().nonnegative() })),
      },
      ...errors(401, 403),
    },
  });
}

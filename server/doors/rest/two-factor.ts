// Two-factor codes (ADR 0043): begin (a secret), confirm with a first code (recovery codes,
// shown once), turn off with a code; with a session only, like the password. The routes and
// their OpenAPI description side by side; the login's optional `code` is described with the login.
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Router } from 'express';
import { z } from 'zod';
import { beginTwoFactor, confirmTwoFactor, disableTwoFactor, twoFactorStatus } from '../../services/two-factor';
import { errors, json, Ok, SESSION_ONLY } from './openapi-parts';
import { handler, jsonObjectBody, requireSession } from './routing';

export function twoFactorRoutes(router: Router): void {
  router.get(
    '/me/2fa',
    requireSession,
    handler(async (_req, res) => {
      res.status(200).json(await twoFactorStatus(res.locals.ctx));
    }),
  );

  router.post(
    '/me/2fa',
    requireSession,
    handler(async (_req, res) => {
      res.status(200).json(await beginTwoFactor(res.locals.ctx));
    }),
  );

  router.post(
    '/me/2fa/confirm',
    requireSession,
    ...jsonObjectBody,
    handler(async (req, res) => {
      res.status(200).json(await confirmTwoFactor(res.locals.ctx, req.body));
    }),
  );

  router.delete(
    '/me/2fa',
    requireSession,
    ...jsonObjectBody,
    handler(async (req, res) => {
      await disableTwoFactor(res.locals.ctx, req.body);
      res.status(200).json({ ok: true });
    }),
  );
}

export const twoFactorCode = z.string().max(64).openapi({
  description:
    'A 6-digit code from the authenticator app (this, the previous or the next 30-second step), or a recovery code.',
  example: '123456',
});
const codeBody = { body: { content: json(z.object({ code: twoFactorCode })) } };
const TwoFactorStatus = z
  .object({ enabled: z.boolean(), recoveryCodesLeft: z.number().int().nonnegative() })
  .strict()
  .openapi('TwoFactorStatus');

export function twoFactorPaths(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/me/2fa',
    tags: ['Account'],
    summary: 'Whether your logins need a two-factor code, and how many recovery codes are left',
    security: SESSION_ONLY,
    responses: { 200: { description: 'The state', content: json(TwoFactorStatus) }, ...errors(401, 403) },
  });
  registry.registerPath({
    method: 'post',
    path: '/me/2fa',
    tags: ['Account'],
    summary: 'Begin setting up two-factor codes: a new secret for your authenticator app (confirm it next)',
    security: SESSION_ONLY,
    responses: {
      200: {
        description: 'The secret, base32, and the otpauth:// URI a QR code carries',
        content: json(z.object({ secret: z.string(), otpauthUri: z.string() }).strict()),
      },
      ...errors(401, 403, 409),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/me/2fa/confirm',
    tags: ['Account'],
    summary:
      'Turn two-factor codes on with a first code from the secret begun: the ten recovery codes, shown this once',
    security: SESSION_ONLY,
    request: codeBody,
    responses: {
      200: {
        description: 'On; keep the recovery codes somewhere safe',
        content: json(z.object({ recoveryCodes: z.array(z.string()).length(10) }).strict()),
      },
      ...errors(400, 401, 403, 409),
    },
  });
  registry.registerPath({
    method: 'delete',
    path: '/me/2fa',
    tags: ['Account'],
    summary: 'Turn two-factor codes off with a current code or a recovery code (wrong ones are throttled like logins)',
    security: SESSION_ONLY,
    request: codeBody,
    responses: { 200: { description: 'Off', content: json(Ok) }, ...errors(400, 401, 403, 409, 429) },
  });
}

// The two addresses of a sign-in with the OpenID Connect provider (ADR 0044):
// - GET /auth/oidc/start: a new flow (state, nonce, PKCE) in its cookie, and off to the provider;
// - GET /auth/oidc/callback: the provider sends the browser back here; the code is exchanged,
//   the ID token checked, the account found, and the same session as a password login's made.
// Every failure is a small page saying what happened and what to do (never a 500 for it).
import type { NextFunction, Request, Response } from 'express';
import { sessionCookie } from '../../auth/cookie';
import {
  authorizationUrl,
  identityFromCallback,
  newFlowSecrets,
  OidcCallbackError,
  type OidcProvider,
} from '../../auth/oidc-client';
import { clearedFlowCookie, codeStepCookie, openFlow, sealFlow, signInNoticeCookie } from '../../auth/oidc-flow';
import { isAppError } from '../../utilities/errors';
import { NoAccountForIdentityError, signInWithIdentity } from '../../services/oidc-sign-in';

export function oidcStart(provider: OidcProvider) {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const ctx = res.locals.ctx;
      const redirectTo = localPath(req.query.redirectTo);
      res.setHeader('Cache-Control', 'no-store');
      if (ctx.user) {
        res.redirect(303, redirectTo);
        return;
      }
      const flow = { ...newFlowSecrets(), redirectTo };
      const target = await authorizationUrl(provider, flow);
      res.append('Set-Cookie', await sealFlow(ctx.config, flow));
      res.redirect(302, target.href);
    } catch (error) {
      next(error);
    }
  };
}

export function oidcCallback(provider: OidcProvider) {
  const name = provider.settings.displayName;
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const ctx = res.locals.ctx;
      res.setHeader('Cache-Control', 'no-store');
      // One use: whatever happens next, the flow is over.
      res.append('Set-Cookie', clearedFlowCookie(ctx.config));
      const flow = await openFlow(ctx.config, req.headers.cookie);
      if (!flow) {
        sendSignInPage(
          res,
          400,
          'Sign-in expired',
          `This sign-in with ${name} was not started in this browser, or took longer than 10 minutes. Nothing was signed in: start again from the login page.`,
        );
        return;
      }
      const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
      let identity: Awaited<ReturnType<typeof identityFromCallback>>;
      try {
        identity = await identityFromCallback(provider, new URL(`${provider.redirectUri}${query}`), flow);
      } catch (error) {
        if (!(error instanceof OidcCallbackError)) throw error;
        const level = error.kind === 'token-invalid' || error.kind === 'unreachable' ? 'warn' : 'info';
        ctx.log[level]({ kind: error.kind, detail: error.message }, 'provider sign-in failed');
        const [status, title, message] = failurePage(error, name);
        sendSignInPage(res, status, title, message);
        return;
      }
      let outcome: Awaited<ReturnType<typeof signInWithIdentity>>;
      try {
        outcome = await signInWithIdentity(ctx, identity);
      } catch (error) {
        if (error instanceof NoAccountForIdentityError) {
          sendSignInPage(
            res,
            403,
            'No account for this identity',
            `${name} signed you in, but your identity there is not linked to an account here, and signing in never creates one. Ask an administrator to link it to your account.`,
          );
          return;
        }
        if (isAppError(error) && error.code === 'FORBIDDEN') {
          sendSignInPage(res, 403, 'Account disabled', error.message);
          return;
        }
        throw error;
      }
      if (outcome.kind === 'code-step') {
        res.append(
          'Set-Cookie',
          await codeStepCookie(ctx.config, { userId: outcome.userId, redirectTo: flow.redirectTo, method: 'oidc' }),
        );
        res.redirect(303, `/login?${new URLSearchParams({ redirectTo: flow.redirectTo })}`);
        return;
      }
      const { session } = outcome;
      res.append('Set-Cookie', sessionCookie(ctx.config, session.token, session.maxAgeSeconds));
      // Wrong two-factor codes tried since the last sign-in: the next page tells of them (ADR 0058).
      if (session.wrongCodes) {
        const { count: wrongCodes, lastAt } = session.wrongCodes;
        res.append('Set-Cookie', await signInNoticeCookie(ctx.config, { userId: session.user.id, wrongCodes, lastAt }));
      }
      res.redirect(303, flow.redirectTo);
    } catch (error) {
      next(error);
    }
  };
}

function failurePage(error: OidcCallbackError, name: string): [number, string, string] {
  switch (error.kind) {
    case 'provider-refused':
      return [
        400,
        'Sign-in not completed',
        `${name} did not sign you in${error.providerError ? ` (${error.providerError})` : ''}. Nothing was signed in: start again from the login page.`,
      ];
    case 'wrong-state':
      return [
        400,
        'Sign-in not completed',
        `The answer from ${name} does not belong to the sign-in started in this browser. Nothing was signed in: start again from the login page.`,
      ];
    case 'code-refused':
      return [
        400,
        'Sign-in not completed',
        `${name} refused to complete this sign-in: its code was already used or has expired. Start again from the login page.`,
      ];
    case 'token-invalid':
      return [
        400,
        'Sign-in not completed',
        `The identity ${name} sent could not be verified (it is not valid for this service, or has expired), so nothing was signed in. Start again from the login page; if this keeps happening, tell an administrator.`,
      ];
    case 'unreachable':
      return [
        502,
        'Sign-in not completed',
        `${name} cannot be reached right now, so the sign-in could not be completed. Try again in a moment from the login page.`,
      ];
  }
}

/** Only a path on this site (no open redirect); My files otherwise. */
function localPath(value: unknown): string {
  if (typeof value !== 'string' || !value.startsWith('/') || value.startsWith('//')) return '/files';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
  if (/[\\\u0000-\u001f\u007f]/.test(value) || value.length > 2048) return '/files';
  const base = 'http://local.invalid';
  try {
    const url = new URL(value, base);
    const local = url.pathname + url.search + url.hash;
    return url.origin === base && !local.startsWith('//') ? local : '/files';
  } catch {
    return '/files';
  }
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char]);

function sendSignInPage(res: Response, status: number, title: string, message: string): void {
  res
    .status(status)
    .type('html')
    .send(`<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,"><title>${escapeHtml(title)} · File sharing</title></head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(message)}</p>
<p><a href="/login">Back to the login page</a></p>
</main>
</body>
</html>
`);
}

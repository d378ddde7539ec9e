// A real OpenID Connect provider (oidc-provider) on 127.0.0.1 and a free port, for the sign-in
// tests (ADR 0044). One client, registered as a native application so that its redirect URI
// `http://127.0.0.1/auth/oidc/callback` matches the app on whatever port it listens (RFC 8252).
// - `accounts`: the identities it knows (subject → claims); any other login name is refused.
// - `signInAs`: when set, the provider signs that subject in and grants consent without showing
//   its pages (the flow can then be followed with fetch); when null, its own login and consent
//   pages are shown (devInteractions), as a person sees them in a browser.
// - `alterIdToken`: rewrites the claims of the next ID tokens it issues, signed with its own key,
//   as a provider with another audience or a wrong clock would send them.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import Provider from 'oidc-provider';

const OIDC_CLIENT_ID = 'file-sharing';
const OIDC_CLIENT_SECRET = 'a-client-secret-for-the-tests-0123456789';

export interface TestProvider {
  issuer: string;
  /** The app's environment for this provider (OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, OIDC_DISPLAY_NAME). */
  env: Record<string, string>;
  accounts: Map<string, Record<string, unknown>>;
  signInAs: string | null;
  alterIdToken: ((claims: JWTPayload) => JWTPayload) | null;
  /** Stops answering (connections refused), as a provider that went down. */
  stop(): Promise<void>;
}

export async function startTestProvider(): Promise<TestProvider> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };

  const testProvider: TestProvider = {
    issuer,
    env: {
      OIDC_ISSUER: issuer,
      OIDC_CLIENT_ID,
      OIDC_CLIENT_SECRET,
      OIDC_DISPLAY_NAME: 'Acme',
    },
    accounts: new Map(),
    signInAs: null,
    alterIdToken: null,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: OIDC_CLIENT_ID,
        client_secret: OIDC_CLIENT_SECRET,
        application_type: 'native',
        redirect_uris: ['http://127.0.0.1/auth/oidc/callback'],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    jwks: { keys: [jwk] },
    cookies: { keys: ['cookie-key-for-the-test-provider'] },
    claims: { openid: ['sub'], profile: ['preferred_username', 'name'], email: ['email', 'email_verified'] },
    // The profile and email claims in the ID token itself, not only at the userinfo endpoint.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 3600 },
    features: { devInteractions: { enabled: true } },
    async findAccount(_ctx, sub) {
      const claims = testProvider.accounts.get(sub);
      if (!claims) return undefined;
      return { accountId: sub, claims: async () => ({ sub, ...claims }) };
    },
  });
  // The provider's log lines on errors it answers (a refused code…) are its own business here.
  provider.on('server_error', () => {});

  provider.use(async (ctx, next) => {
    const interaction = /^\/interaction\/([^/]+)$/.exec(ctx.path);
    if (interaction && ctx.method === 'GET' && testProvider.signInAs !== null) {
      const details = await provider.interactionDetails(ctx.req, ctx.res);
      let result: Record<string, unknown>;
      if (details.prompt.name === 'login') {
        result = { login: { accountId: testProvider.signInAs } };
      } else {
        const grant = new provider.Grant({
          accountId: details.session?.accountId,
          clientId: String(details.params.client_id),
        });
        grant.addOIDCScope(String(details.params.scope));
        result = { consent: { grantId: await grant.save() } };
      }
      ctx.redirect(await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: false }));
      return;
    }
    await next();
    const body = ctx.body as { id_token?: string } | undefined;
    if (ctx.path === '/token' && testProvider.alterIdToken && typeof body?.id_token === 'string') {
      const [, payload] = body.id_token.split('.');
      const claims = testProvider.alterIdToken(JSON.parse(Buffer.from(payload, 'base64url').toString()));
      body.id_token = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'test-key' }).sign(privateKey);
    }
  });
  server.on('request', provider.callback());
  return testProvider;
}

/** Cookies as a browser keeps them for one site (names and values; paths are not told apart). */
class CookieJar {
  private readonly values = new Map<string, string>();
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      const expired = attributes.some((attribute) => /^\s*max-age=0\s*$/i.test(attribute));
      if (expired || value === '') this.values.delete(name);
      else this.values.set(name, value);
    }
  }
  has(name: string): boolean {
    return this.values.has(name);
  }
  header(): string {
    return [...this.values].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

export interface ProviderRoundTrip {
  /** The app's cookies once the provider sent the browser back (the flow's among them). */
  appJar: CookieJar;
  /** Where the provider sent the browser back: the app's callback with its code and state. */
  callbackUrl: string;
}

/**
 * What a browser does from the login page's button to the provider and back, up to the callback
 * (not sent): the provider must have `signInAs` set.
 */
export async function roundTripToProvider(appUrl: string, redirectTo = '/files'): Promise<ProviderRoundTrip> {
  const appJar = new CookieJar();
  const providerJar = new CookieJar();
  const start = await fetch(`${appUrl}/auth/oidc/start?${new URLSearchParams({ redirectTo })}`, {
    redirect: 'manual',
  });
  appJar.take(start);
  let location = start.headers.get('location');
  if (start.status !== 302 || !location) throw new Error(`the start answered ${start.status}`);
  for (let hop = 0; hop < 10; hop++) {
    if (location.startsWith(`${appUrl}/`)) return { appJar, callbackUrl: location };
    const res: Response = await fetch(location, { redirect: 'manual', headers: { cookie: providerJar.header() } });
    providerJar.take(res);
    const next: string | null = res.headers.get('location');
    if (!next) throw new Error(`the provider answered ${res.status} without a redirect: ${await res.text()}`);
    location = new URL(next, location).href;
  }
  throw new Error('the provider never sent the browser back');
}

/** Sends the browser's request to the callback with the app's cookies. */
export function sendCallback(trip: ProviderRoundTrip, callbackUrl = trip.callbackUrl): Promise<Response> {
  return fetch(callbackUrl, { redirect: 'manual', headers: { cookie: trip.appJar.header() } });
}

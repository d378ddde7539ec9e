// The OpenID Connect provider as openid-client sees it (ADR 0044): discovered once at start
// (a provider that cannot be reached, or whose configuration is invalid, stops the start with
// one line naming OIDC_ISSUER), then the authorization-code flow with PKCE, state and nonce.
// openid-client checks the ID token: its signature against the provider's keys, its issuer,
// audience, expiry and nonce. Every way the callback can fail becomes one OidcCallbackError kind.
import * as oidc from 'openid-client';
import { ConfigError, type Config, type OidcConfig } from '../config';
import type { SignInFlow } from './oidc-flow';

/** Discovery and each request to the provider give up after this long. */
const PROVIDER_TIMEOUT_SECONDS = 10;

export interface OidcProvider {
  readonly settings: OidcConfig;
  readonly client: oidc.Configuration;
  /** `{BASE_URL}/auth/oidc/callback`: what the provider must have registered for this client. */
  readonly redirectUri: string;
}

/** The provider of OIDC_ISSUER, discovered; null when sign-in with a provider is off. Throws a ConfigError. */
export async function discoverOidcProvider(config: Pick<Config, 'oidc' | 'baseUrl'>): Promise<OidcProvider | null> {
  const settings = config.oidc;
  if (!settings) return null;
  const issuer = new URL(settings.issuer);
  let client: oidc.Configuration;
  try {
    client = await oidc.discovery(issuer, settings.clientId, settings.clientSecret, undefined, {
      timeout: PROVIDER_TIMEOUT_SECONDS,
      // A provider on plain http (one on this machine, or in a test) is taken as the operator set it.
      execute: issuer.protocol === 'http:' ? [oidc.allowInsecureRequests] : [],
    });
  } catch (error) {
    throw new ConfigError(`OIDC_ISSUER ${settings.issuer}: ${discoveryFailure(error)}`);
  }
  client.timeout = PROVIDER_TIMEOUT_SECONDS;
  return { settings, client, redirectUri: `${config.baseUrl}/auth/oidc/callback` };
}

function discoveryFailure(error: unknown): string {
  if (isUnreachable(error)) return `the provider cannot be reached (${firstLine(innermost(error))})`;
  return `the provider's configuration (/.well-known/openid-configuration) is not valid: ${firstLine(error)}`;
}

/** A new flow's secrets: state, nonce and the PKCE verifier. */
export function newFlowSecrets(): Omit<SignInFlow, 'redirectTo'> {
  return { state: oidc.randomState(), nonce: oidc.randomNonce(), codeVerifier: oidc.randomPKCECodeVerifier() };
}

/** Where the browser goes to sign in at the provider. */
export async function authorizationUrl(provider: OidcProvider, flow: SignInFlow): Promise<URL> {
  return oidc.buildAuthorizationUrl(provider.client, {
    redirect_uri: provider.redirectUri,
    scope: provider.settings.scopes,
    state: flow.state,
    nonce: flow.nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(flow.codeVerifier),
    code_challenge_method: 'S256',
  });
}

export type OidcFailureKind =
  /** The provider answered with an error (the user cancelled, consent refused…). */
  | 'provider-refused'
  /** The callback does not belong to the flow this browser started (state). */
  | 'wrong-state'
  /** The provider would not exchange the code: used already, expired. */
  | 'code-refused'
  /** The ID token failed a check: signature, issuer, audience, expiry, nonce. */
  | 'token-invalid'
  /** The provider could not be reached. */
  | 'unreachable';

export class OidcCallbackError extends Error {
  override name = 'OidcCallbackError';
  constructor(
    readonly kind: OidcFailureKind,
    detail: string,
    /** The provider's error code, when it sent one (letters and underscores only). */
    readonly providerError: string | null = null,
  ) {
    super(detail);
  }
}

export interface ProviderIdentity {
  /** The ID token's `sub`: stable for this provider. */
  subject: string;
  /** The ID token's claims (checked). */
  claims: Record<string, unknown>;
}

/** Exchanges the callback's code, with every check, for the identity the ID token names. */
export async function identityFromCallback(
  provider: OidcProvider,
  callbackUrl: URL,
  flow: SignInFlow,
): Promise<ProviderIdentity> {
  let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
  try {
    tokens = await oidc.authorizationCodeGrant(provider.client, callbackUrl, {
      pkceCodeVerifier: flow.codeVerifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    });
  } catch (error) {
    throw classify(error);
  }
  const claims = tokens.claims();
  if (!claims || typeof claims.sub !== 'string' || claims.sub === '')
    throw new OidcCallbackError('token-invalid', 'the ID token names no subject');
  return { subject: claims.sub, claims: claims as Record<string, unknown> };
}

function classify(error: unknown): OidcCallbackError {
  const detail = firstLine(error);
  if (error instanceof oidc.AuthorizationResponseError) {
    const code = /^[a-z_]{1,64}$/.test(error.error) ? error.error : null;
    return new OidcCallbackError('provider-refused', detail, code);
  }
  if (error instanceof oidc.ResponseBodyError) {
    const code = /^[a-z_]{1,64}$/.test(error.error) ? error.error : null;
    return new OidcCallbackError(error.error === 'invalid_grant' ? 'code-refused' : 'token-invalid', detail, code);
  }
  if (isUnreachable(error)) return new OidcCallbackError('unreachable', firstLine(innermost(error)));
  if (/"state"/.test(causeMessages(error))) return new OidcCallbackError('wrong-state', detail);
  return new OidcCallbackError('token-invalid', detail);
}

/** A network failure (refused, reset, timed out, no such host) anywhere in the error's causes. */
function isUnreachable(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 6; depth++) {
    const { name, code, message } = current as { name?: string; code?: string; message?: string };
    if (name === 'AbortError' || name === 'TimeoutError') return true;
    if (
      typeof code === 'string' &&
      /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|UND_ERR_)/.test(code)
    )
      return true;
    if (current instanceof TypeError && message === 'fetch failed') return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** The messages of the error and its causes (openid-client wraps the precise one). */
function causeMessages(error: unknown): string {
  const messages: string[] = [];
  for (let current = error, depth = 0; current instanceof Error && depth < 6; depth++) {
    messages.push(current.message);
    current = current.cause;
  }
  return messages.join('\n');
}

function innermost(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 6 && (current as { cause?: unknown })?.cause; depth++)
    current = (current as { cause?: unknown }).cause;
  return current;
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0];
}

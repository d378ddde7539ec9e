// Session constants shared by every application of this family.
// A session's lifetime is the configuration's (config.ts: `sessionTtlSeconds`).
/** Below this remaining lifetime a valid session gets a fresh cookie with a full lifetime. */
export const SESSION_RENEW_THRESHOLD_SECONDS = 3600;
/** Paths on which a session is never renewed: logging out must not hand out a new cookie. */
export const LOGOUT_PATHS: readonly string[] = ['/logout', '/api/v1/auth/logout'];
/** The one name of the session cookie. */
export const SESSION_COOKIE_NAME = 'token';

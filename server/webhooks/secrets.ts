// Endpoint secrets are shown once and kept encrypted (ADR 0050): the service must sign with
// them, so only a reversible form will do, and a copy of the database alone does not give them
// away. The key is derived from SESSION_SECRET (HKDF-SHA256), which every instance shares.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const INFO = 'webhook endpoint secrets';
const VERSION = 'v1';

function keyFrom(sessionSecret: Uint8Array): Buffer {
  return Buffer.from(hkdfSync('sha256', sessionSecret, Buffer.alloc(0), INFO, 32));
}

/** A new signing secret, as the user is shown it. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** `v1.<iv>.<tag>.<ciphertext>` (base64url), AES-256-GCM. */
export function sealSecret(secret: string, sessionSecret: Uint8Array): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyFrom(sessionSecret), iv);
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), sealed]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

/** The secret back; throws when it was sealed with another SESSION_SECRET. */
export function openSecret(sealed: string, sessionSecret: Uint8Array): string {
  const [version, iv, tag, data] = sealed.split('.');
  if (version !== VERSION || !iv || !tag || !data) throw new Error('unknown form of a webhook secret');
  const decipher = createDecipheriv('aes-256-gcm', keyFrom(sessionSecret), Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
}

// Start-up's work on disk, once the configuration is checked (server/config.ts) and before the
// database or the content store is opened: the folders the configuration names are made and
// must be writable, and without SESSION_SECRET the generated secret is read, or created.
// What fails here is the operator's to fix: a ConfigError naming the variable they set, one
// line, as for a malformed value.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { countCharacters } from './utilities/characters';
import { ConfigError, type Config, type DatabaseConfig, type LoadedConfig } from './config';
import { makeDirectories } from './utilities/make-directories';

/** Makes what `config` names on disk and returns the configuration the service runs with. */
export function provision(config: LoadedConfig): Config {
  ensureWritableDir('DATA_DIR', config.dataDir);
  if (config.database.dialect === 'sqlite')
    ensureWritableDir(config.databaseVariable, path.dirname(config.database.path));
  if (config.storage.kind === 'disk') {
    ensureWritableDir(config.uploadDirVariable, config.uploadDir);
    refuseSharedUploadDir(config.uploadDir, config.dataDir, config.database);
  }
  if (config.sessionSecret !== null) return Object.freeze({ ...config, sessionSecret: config.sessionSecret });

  const { secret: sessionSecret, generated } = loadOrCreateSecret(config.dataDir);
  // Said when the secret is made, not at every later start that reuses it.
  const warnings = generated
    ? [
        `SESSION_SECRET is not set: generated a secret and stored it in ${secretFileOf(config.dataDir)} (later starts reuse it)`,
      ]
    : [];
  return Object.freeze({
    ...config,
    sessionSecret,
    startupWarnings: Object.freeze([...warnings, ...config.startupWarnings]),
  });
}

function secretFileOf(dataDir: string): string {
  return path.join(dataDir, 'session-secret');
}

/**
 * UPLOAD_DIR is the service's own: its start-up sweep removes content without a record there.
 * It must not hold the data dir (database, secret) or the database: with UPLOAD_DIR=DATA_DIR,
 * a first start would delete app.db and session-secret.
 */
function refuseSharedUploadDir(uploadDir: string, dataDir: string, database: DatabaseConfig): void {
  const uploads = fs.realpathSync(uploadDir);
  if (isWithin(fs.realpathSync(dataDir), uploads)) {
    throw new ConfigError(
      `UPLOAD_DIR (${uploadDir}) must not be DATA_DIR or contain it: give uploads a folder of their own`,
    );
  }
  if (database.dialect !== 'sqlite') return;
  const file = path.join(fs.realpathSync(path.dirname(database.path)), path.basename(database.path));
  if (isWithin(file, uploads)) {
    throw new ConfigError(`DATABASE_URL: the database ${database.path} must not be inside UPLOAD_DIR (${uploadDir})`);
  }
}

/** True when `target` is `folder` itself or anything below it. */
function isWithin(target: string, folder: string): boolean {
  const relative = path.relative(folder, target);
  return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}

function ensureWritableDir(name: string, dir: string): void {
  let reason: string;
  try {
    makeDirectories(dir);
    fs.accessSync(dir, fs.constants.W_OK);
    // access() passes for a writable regular file too: what is not a folder would only fail
    // later, under the name of what was to go in it (the uploads, the secret).
    if (fs.statSync(dir).isDirectory()) return;
    reason = 'ENOTDIR';
  } catch (error) {
    reason = (error as NodeJS.ErrnoException).code ?? 'not writable';
  }
  throw new ConfigError(`${name}: directory ${dir} is not writable (${reason})`);
}

/**
 * A generated secret is kept in the data dir (mode 0600) so sessions survive restarts. SESSION_SECRET
 * is unset here, so a file that cannot be read or written is DATA_DIR's to fix.
 */
function loadOrCreateSecret(dataDir: string): { secret: Uint8Array; generated: boolean } {
  const file = secretFileOf(dataDir);
  const existing = readSecretFile(file);
  if (existing !== null) return { secret: existing, generated: false };
  const secret = randomBytes(48).toString('base64url');
  // Written in full under a temporary name, then linked into place: the file never exists
  // half-written (a crash leaves no empty secret), and link fails with EEXIST when another
  // process (server and CLI starting at once) got there first — its secret is then used.
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    fs.writeFileSync(temp, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    try {
      fs.linkSync(temp, file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw error;
      // A filesystem without hard links: create it directly, still never overwriting.
      fs.writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      const winner = readSecretFile(file);
      if (winner !== null) return { secret: winner, generated: false };
    }
    throw new ConfigError(`DATA_DIR: cannot write the generated session secret ${file} (${code})`);
  } finally {
    fs.rmSync(temp, { force: true });
  }
  return { secret: new TextEncoder().encode(secret), generated: true };
}

/** The stored secret; null when there is none yet; a ConfigError when it is unusable. */
function readSecretFile(file: string): Uint8Array | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8').trim();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    throw new ConfigError(`DATA_DIR: cannot read the generated session secret ${file} (${code})`);
  }
  if (countCharacters(text) < 32) {
    throw new ConfigError(
      `SESSION_SECRET: ${file} holds fewer than 32 characters; delete it to generate a new secret, or set SESSION_SECRET`,
    );
  }
  return new TextEncoder().encode(text);
}

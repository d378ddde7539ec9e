// Loading the configuration only reads the environment; the start-up's provision makes what it
// names on disk: the folders and, without SESSION_SECRET, the generated secret.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { provision } from '../../server/provision';
import { tempDir } from '../helpers/app';

/** A DATA_DIR that does not exist yet, nor does its parent. */
function absentDataDir(): string {
  return path.join(tempDir('fs-provision-'), 'fresh', 'data');
}

describe('loading the configuration', () => {
  it('when DATA_DIR does not exist and SESSION_SECRET is unset, then loading leaves it absent and the secret to start-up', () => {
    const dataDir = absentDataDir();

    const config = loadConfig({ DATA_DIR: dataDir });

    expect(fs.existsSync(path.dirname(dataDir))).toBe(false);
    expect(config.sessionSecret).toBeNull();
    expect(config.startupWarnings).toEqual([]);
  });

  it('when UPLOAD_DIR and a SQLite DATABASE_URL name folders that do not exist, then loading makes neither', () => {
    const root = tempDir('fs-provision-');

    loadConfig({
      DATA_DIR: path.join(root, 'data'),
      UPLOAD_DIR: path.join(root, 'up'),
      DATABASE_URL: `file:${path.join(root, 'db', 'app.db')}`,
    });

    expect(fs.readdirSync(root)).toEqual([]);
  });
});

describe('the start-up provision', () => {
  it('when it runs on the loaded configuration, then DATA_DIR, its uploads folder and the secret file (mode 0600) are made, with a warning', () => {
    const dataDir = absentDataDir();

    const config = provision(loadConfig({ DATA_DIR: dataDir }));

    expect(fs.readdirSync(dataDir).sort()).toEqual(['session-secret', 'uploads']);
    const secretFile = path.join(dataDir, 'session-secret');
    expect(fs.statSync(secretFile).mode & 0o777).toBe(0o600);
    expect(Buffer.from(config.sessionSecret).toString('utf8')).toBe(fs.readFileSync(secretFile, 'utf8').trim());
    expect(config.startupWarnings).toEqual([
      `SESSION_SECRET is not set: generated a secret and stored it in ${secretFile} (later starts reuse it)`,
    ]);
  });

  it('when it runs again on the same DATA_DIR, then the secret file is created only once and reused, without a second warning', () => {
    const dataDir = absentDataDir();
    const first = provision(loadConfig({ DATA_DIR: dataDir }));
    const secretFile = path.join(dataDir, 'session-secret');
    const created = fs.statSync(secretFile);

    const second = provision(loadConfig({ DATA_DIR: dataDir }));

    expect(Buffer.from(second.sessionSecret).equals(Buffer.from(first.sessionSecret))).toBe(true);
    expect(fs.statSync(secretFile).ino).toBe(created.ino);
    expect(fs.statSync(secretFile).mtimeMs).toBe(created.mtimeMs);
    expect(fs.readdirSync(dataDir).sort()).toEqual(['session-secret', 'uploads']);
    expect(second.startupWarnings).toEqual([]);
  });

  it('when SESSION_SECRET is set, then the folders are made and no secret file is written', () => {
    const dataDir = absentDataDir();

    const config = provision(loadConfig({ DATA_DIR: dataDir, SESSION_SECRET: 's'.repeat(32) }));

    expect(fs.readdirSync(dataDir)).toEqual(['uploads']);
    expect(Buffer.from(config.sessionSecret).toString('utf8')).toBe('s'.repeat(32));
    expect(config.startupWarnings).toEqual([]);
  });
});

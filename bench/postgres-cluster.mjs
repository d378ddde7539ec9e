// A throwaway PostgreSQL cluster for the bench's PostgreSQL + S3 phase, from Debian's
// `postgresql` binaries: its own data dir, port and socket dir, fsync off (the content, not
// the few rows, is what the phase measures). The bench's own small version of what
// tests/helpers/backends.ts does for the tests; stop() is synchronous so that the bench's
// exit handler can call it too.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The newest installed PostgreSQL's bin folder, or null. */
export function postgresBin() {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return null;
  const versions = fs.readdirSync(root).filter((name) => fs.existsSync(path.join(root, name, 'bin', 'initdb')));
  versions.sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(root, versions[0], 'bin') : null;
}

/**
 * initdb + pg_ctl start on 127.0.0.1:`port`. Returns `{ url, createDatabase(name), stop() }`;
 * `url` is the superuser's address without a database.
 */
export function startPostgres({ bin, port }) {
  // Its own temp dir, not inside the bench's: that one is private to root, and the cluster
  // runs as `postgres` when the bench runs as root.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fs-bench-pg-'));
  const data = path.join(dir, 'data');
  // initdb refuses to run as root: the cluster then belongs to the postgres user.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) execFileSync('chown', ['postgres:postgres', dir]);
  const run = (command, args) => {
    const [file, argv] = asRoot
      ? ['runuser', ['-u', 'postgres', '--', path.join(bin, command), ...args]]
      : [path.join(bin, command), args];
    const result = spawnSync(file, argv, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr || result.stdout || result.error}`);
  };

  let running = false;
  const stop = () => {
    try {
      if (running) run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } finally {
      running = false;
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };
  try {
    run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
    const serverOptions = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
    run('pg_ctl', ['-D', data, '-l', path.join(dir, 'log'), '-w', '-o', serverOptions, 'start']);
    running = true;
  } catch (error) {
    stop();
    throw error;
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}`,
    createDatabase: (name) => run('createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', name]),
    stop,
  };
}

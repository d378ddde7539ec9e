// The deployment files agree with each other and with the app: Dockerfile, compose.yaml,
// .dockerignore and the README's Deployment section. No Docker engine is needed: the files are
// read as text, and the commands they embed (health check, backup) are run against the real
// server process.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_ENV, SERVER_NODE_FLAGS } from '../../scripts/server-node-flags.mjs';
import { tempDir, TEST_SECRET } from '../helpers/app';
import { exitWithin, freePort, killIfRunning, ROOT, run, startServer, type ServerProcess } from './support';

const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
/** The one file with the server's node flags and environment (ADR 0074). */
const STARTER = 'scripts/start-server.sh';

interface Instruction {
  keyword: string;
  args: string;
}

/** Dockerfile instructions, with line continuations joined and comments dropped. */
function parseDockerfile(text: string): Instruction[] {
  const joined = text
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n/g, ' ');
  return joined
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [, keyword, args] = /^(\S+)\s*(.*)$/.exec(line)!;
      return { keyword: keyword.toUpperCase(), args: args.trim() };
    });
}

/** Stages, each with its FROM image (global ARG defaults substituted) and its instructions. */
function stagesOf(instructions: Instruction[]) {
  const globalArgs = new Map<string, string>();
  const stages: { image: string; name?: string; body: Instruction[] }[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'ARG' && stages.length === 0) {
      const [name, value = ''] = instruction.args.split('=');
      globalArgs.set(name.trim(), value.trim());
    } else if (instruction.keyword === 'FROM') {
      const [, ref, name] = /^(\S+)(?:\s+AS\s+(\S+))?/i.exec(instruction.args)!;
      const image = ref.replace(/\$\{?(\w+)\}?/g, (_m, arg: string) => globalArgs.get(arg) ?? `<unset ${arg}>`);
      stages.push({ image, name, body: [] });
    } else if (stages.length) {
      stages[stages.length - 1].body.push(instruction);
    }
  }
  return stages;
}

const dockerfile = parseDockerfile(read('Dockerfile'));
const stages = stagesOf(dockerfile);
const runtime = stages[stages.length - 1];
const build = stages.find((stage) => stage.name === 'build');
const all = (stage: { body: Instruction[] }, keyword: string) => stage.body.filter((i) => i.keyword === keyword);
const one = (stage: { body: Instruction[] }, keyword: string) => {
  const found = all(stage, keyword);
  expect(found, `exactly one ${keyword} in the runtime stage`).toHaveLength(1);
  return found[0].args;
};

const compose = read('compose.yaml');
const readme = read('README.md');
const deployment = /^## Deployment\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1] ?? '';
/** The README's shell lines with `\` continuations joined. */
const deploymentCommands = deployment.replace(/\\\n\s*/g, ' ');

/** The health check commands, in exec form (JSON arrays). */
const healthcheckArgs = all(runtime, 'HEALTHCHECK')[0]?.args ?? '';
const dockerHealth = JSON.parse(/CMD\s+(\[.*\])\s*$/.exec(healthcheckArgs)?.[1] ?? '[]') as string[];
const composeHealth = JSON.parse(/^\s+test:\s*(\[.*\])\s*$/m.exec(compose)?.[1] ?? '[]') as string[];

const composeImage = /^\s+image:\s*(\S+)\s*$/m.exec(compose)?.[1];
const composeVolume = /^\s+-\s*"?([\w.-]+):\/data"?\s*$/m.exec(compose)?.[1];

describe('Dockerfile', () => {
  it('when the stages are read, then there is a build stage and a runtime stage on the same pinned node:22 bookworm-slim image', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(build, 'a stage named build').toBeDefined();
    for (const stage of stages) {
      expect(stage.image).toMatch(/^node:22\.\d+\.\d+-bookworm-slim(@sha256:[0-9a-f]{64})?$/);
      expect(stage.image).not.toMatch(/latest/);
    }
    expect(runtime.image).toBe(build!.image);
  });

  it('when the build stage runs, then it installs a compiler, builds sqlite3 from source with npm ci, builds, and prunes dev dependencies', () => {
    const runs = all(build!, 'RUN')
      .map((i) => i.args)
      .join('\n');
    for (const tool of ['python3', 'make', 'g++']) expect(runs).toContain(tool);
    expect(runs).toMatch(/\bnpm ci\b/);
    expect(runs, 'install scripts must run: sqlite3 compiles in its own').not.toMatch(/--ignore-scripts/);
    expect(runs).toMatch(/\bnpm run build\b/);
    expect(runs).toMatch(/\bnpm prune --omit=dev\b/);
    const env = all(build!, 'ENV')
      .map((i) => i.args)
      .join(' ');
    expect(env).toMatch(/npm_config_build_from_source=(true|sqlite3)\b/);
    expect(env, 'headers from the image, never downloaded').toMatch(/npm_config_nodedir=\/usr\/local\b/);
    expect(env, 'NODE_ENV=production in the build stage would skip the dev tools npm run build needs').not.toMatch(
      /NODE_ENV/,
    );
  });

  it('when the runtime stage is read, then it copies the pruned node_modules, dist, build, public and package.json from the build stage', () => {
    const copies = all(runtime, 'COPY').map((i) => i.args);
    for (const item of ['node_modules', 'dist', 'build', 'public', 'package.json']) {
      expect(
        copies.some(
          (args) => /--from=build\b/.test(args) && new RegExp(`/app/${item.replace('.', '\\.')}\\b`).test(args),
        ),
        `${item} copied from the build stage`,
      ).toBe(true);
    }
    expect(
      copies.some((args) => !/--from=/.test(args)),
      'nothing copied from the context into the runtime stage',
    ).toBe(false);
    expect(
      all(runtime, 'RUN')
        .map((i) => i.args)
        .join('\n'),
      'no install in the runtime stage',
    ).not.toMatch(/npm (ci|install)/);
  });

  it('when the image starts, then CMD is the exec form of sh scripts/start-server.sh dist/server/index.js, the script is in the image, as a non-root USER, with NODE_ENV=production and DATA_DIR=/data', () => {
    expect(JSON.parse(one(runtime, 'CMD'))).toEqual(['sh', STARTER, 'dist/server/index.js']);
    expect(all(runtime, 'ENTRYPOINT')).toEqual([]);
    // CMD's paths are relative to WORKDIR, where the script is copied.
    expect(one(runtime, 'WORKDIR')).toBe('/app');
    expect(all(runtime, 'COPY').map((i) => i.args)).toContain(`--from=build /app/${STARTER} ./${STARTER}`);
    const user = one(runtime, 'USER');
    expect(user.split(':')[0]).not.toMatch(/^(root|0)$/);
    const env = all(runtime, 'ENV')
      .map((i) => i.args)
      .join(' ');
    expect(env).toMatch(/\bNODE_ENV=production\b/);
    expect(env).toMatch(/\bDATA_DIR=\/data\b/);
    // USER comes after every RUN that needs root, and before CMD.
    const order = runtime.body.map((i) => i.keyword);
    expect(order.lastIndexOf('RUN')).toBeLessThan(order.indexOf('USER'));
    expect(order.indexOf('USER')).toBeLessThan(order.indexOf('CMD'));
  });

  it('when npm start is read, then it runs the same script as the container', () => {
    const start = JSON.parse(read('package.json')).scripts.start as string;
    // exec: the shell npm runs the script in becomes the server, so npm's SIGTERM reaches it.
    expect(start).toBe(`exec sh ${STARTER} scripts/start.mjs`);
  });

  it('when the Dockerfile, package.json and the README are read, then none spells a node flag or glibc variable of the script again', () => {
    expect(SERVER_NODE_FLAGS.length).toBeGreaterThan(0);
    expect(Object.keys(SERVER_ENV).length).toBeGreaterThan(0);
    const elsewhere = { Dockerfile: read('Dockerfile'), 'package.json': read('package.json'), 'README.md': readme };
    for (const [file, text] of Object.entries(elsewhere)) {
      for (const spelling of [...SERVER_NODE_FLAGS, ...Object.keys(SERVER_ENV)]) {
        expect(text.includes(spelling), `${spelling} in ${file}`).toBe(false);
      }
    }
  });

  it('when the script starts node, then node has its flags on the command line and its variables in the environment, and no shell stays as its parent', async () => {
    const shown = await run(
      'sh',
      [
        STARTER,
        '-e',
        'console.log(JSON.stringify({ argv: process.execArgv, env: process.env, parent: process.ppid }))',
      ],
      { env: { PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}` } },
    );
    expect(shown.code, shown.stderr).toBe(0);
    const seen = JSON.parse(shown.stdout) as { argv: string[]; env: Record<string, string>; parent: number };
    expect(seen.argv.slice(0, SERVER_NODE_FLAGS.length)).toEqual(SERVER_NODE_FLAGS);
    for (const [name, value] of Object.entries(SERVER_ENV)) expect(seen.env[name], name).toBe(value);
    // exec: no shell stays between; node's parent is whoever ran the script.
    expect(seen.parent).toBe(process.pid);
  });

  it('when ports and volumes are read, then EXPOSE 3000 matches compose, and VOLUME /data matches DATA_DIR and the compose volume', () => {
    expect(one(runtime, 'EXPOSE')).toBe('3000');
    expect(compose).toMatch(/^\s+-\s*"?3000:3000"?\s*$/m);
    const volume = one(runtime, 'VOLUME');
    expect(volume.startsWith('[') ? JSON.parse(volume) : volume.split(/\s+/)).toEqual(['/data']);
    expect(composeVolume).toBe('filesharing-data');
    expect(compose).toMatch(new RegExp(`^volumes:\\n\\s+${composeVolume}:\\s*$`, 'm'));
  });

  it('when the health check is read, then the Dockerfile and compose.yaml ask /healthz on port 3000 with node, the same way', () => {
    expect(dockerHealth[0]).toBe('node');
    expect(dockerHealth.join(' ')).toMatch(/http:\/\/127\.0\.0\.1:.*3000.*\/healthz/);
    expect(composeHealth).toEqual(['CMD', ...dockerHealth]);
    expect(one(runtime, 'HEALTHCHECK')).toMatch(/--interval=30s/);
    expect(compose).toMatch(/^\s+interval:\s*30s\s*$/m);
  });
});

describe('health check command', () => {
  let server: ServerProcess | undefined;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = tempDir('fs-deploy-');
    server = await startServer({ env: { DATA_DIR: dataDir, SESSION_SECRET: TEST_SECRET, LOG_LEVEL: 'warn' } });
  }, 30_000);
  afterAll(async () => {
    if (server) {
      server.child.kill('SIGTERM');
      await exitWithin(server, 10_000).catch(() => undefined);
      killIfRunning(server);
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('when the image health check runs against a healthy server, then it exits 0; against a closed port, 1', async () => {
    const [command, ...args] = dockerHealth;
    expect(command).toBe('node');
    const healthy = await run(process.execPath, args, { env: { PORT: String(server!.port) } });
    expect(healthy.code, healthy.stderr).toBe(0);
    const closed = await run(process.execPath, args, { env: { PORT: String(await freePort()) } });
    expect(closed.code).toBe(1);
  });

  it('when the README backup script runs against the live database, then it writes a consistent copy', async () => {
    const script = /docker exec -i filesharing node - <<'EOF'\n([\s\S]*?)\nEOF/.exec(deployment)?.[1];
    expect(script, 'the VACUUM INTO script in the README').toBeDefined();
    const created = await run(process.execPath, ['dist/cli/register-user.js', 'backup-check', '--password-stdin'], {
      env: { DATA_DIR: dataDir, SESSION_SECRET: TEST_SECRET },
      input: 'a long passphrase\n',
    });
    expect(created.code, created.stderr).toBe(0);
    const local = script!.replaceAll('/data/', `${dataDir}/`);
    const backup = await run(process.execPath, ['-'], { input: local });
    expect(backup.code, backup.stderr).toBe(0);
    const check = await run(process.execPath, [
      '-e',
      `const s = require('sqlite3'); new s.Database(${JSON.stringify(`${dataDir}/app-backup.db`)}, s.OPEN_READONLY)` +
        `.all('select username from users', (e, rows) => { if (e) throw e; console.log(JSON.stringify(rows)); });`,
    ]);
    expect(check.code, check.stderr).toBe(0);
    expect(JSON.parse(check.stdout)).toEqual([{ username: 'backup-check' }]);
  });
});

describe('compose.yaml', () => {
  it('when the service is read, then it builds this image, reads .env, restarts unless stopped, and gives shutdown more than its 10 s', () => {
    expect(compose).toMatch(/^services:\n\s+filesharing:\s*$/m);
    expect(compose).toMatch(/^\s+build:\s*\.\s*$/m);
    expect(composeImage).toBe('filesharing');
    expect(compose).toMatch(/^\s+env_file:\s*\.env\s*$/m);
    expect(compose).toMatch(/^\s+restart:\s*unless-stopped\s*$/m);
    const grace = /^\s+stop_grace_period:\s*(\d+)s\s*$/m.exec(compose)?.[1];
    expect(Number(grace)).toBeGreaterThan(10);
  });
});

describe('.dockerignore', () => {
  const ignored = read('.dockerignore')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));

  it('when the build context is sent, then local state, secrets and build output stay out', () => {
    for (const entry of [
      'node_modules',
      'data',
      '.git',
      'build',
      'public/build',
      'dist',
      'test-output',
      '*.log',
      '.env',
    ]) {
      expect(ignored).toContain(entry);
    }
  });

  it('when the build context is sent, then everything npm ci and npm run build need is in it', () => {
    for (const needed of [
      'package.json',
      'package-lock.json',
      'app',
      'server',
      'cli',
      'scripts',
      'remix.config.js',
      'tsconfig.json',
      '.env.example',
    ]) {
      expect(ignored, needed).not.toContain(needed);
      expect(fs.existsSync(path.join(ROOT, needed)), needed).toBe(true);
    }
    expect(ignored.some((line) => line === '*' || line === '**')).toBe(false);
  });
});

describe('README Quick start', () => {
  it('when it is read, then its commands are exactly the two a fresh clone needs: npm ci && npm start, and npm test', () => {
    const quickStart = /^## Quick start\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1] ?? '';
    const blocks = [...quickStart.matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((block) => block[1].trim());
    expect(blocks).toEqual(['npm ci && npm start', 'npm test']);
  });
});

describe('README Deployment section', () => {
  it('when it is read, then it builds, runs and composes the same image with the same volume, port and env file', () => {
    expect(deployment).not.toMatch(/See below once written/);
    expect(deploymentCommands).toMatch(new RegExp(`docker build -t ${composeImage} \\.`));
    const dockerRun = deploymentCommands.split('\n').find((line) => /^docker run .*-p 3000:3000/.test(line.trim()));
    expect(dockerRun, 'a docker run line publishing port 3000').toBeDefined();
    expect(dockerRun).toContain(`-v ${composeVolume}:/data`);
    expect(dockerRun).toContain('--env-file .env');
    expect(dockerRun!.trim().endsWith(` ${composeImage}`)).toBe(true);
    expect(deployment).toMatch(/docker compose up -d --build/);
    expect(deployment).toMatch(/cp \.env\.example \.env/);
  });

  it('when it is read, then it shows user creation, health, the reverse proxy, timeouts, backups and upgrades', () => {
    expect(deployment).toMatch(/docker exec -it \S+ node dist\/cli\/register-user\.js alice/);
    expect(deployment).toContain('/healthz');
    for (const name of ['TRUST_PROXY', 'BASE_URL', 'REQUEST_TIMEOUT_MS', 'MAX_UPLOAD_BYTES'])
      expect(deployment).toContain(name);
    expect(deployment).toMatch(/Secure/);
    for (const directive of [
      'client_max_body_size',
      'proxy_request_buffering off',
      'proxy_read_timeout',
      'proxy_send_timeout',
    ]) {
      expect(deployment).toContain(directive);
    }
    expect(deployment).toContain('sqlite3 /data/app.db ".backup /backup/app.db"');
    expect(deployment).toContain('VACUUM INTO');
    expect(deployment).toMatch(/uploads/);
    expect(deployment).toMatch(/### Upgrades[\s\S]*migrat/);
  });
});

describe('the scale-out example (compose.scale-out.yaml)', () => {
  const scaleOut = read('compose.scale-out.yaml');
  const nginx = read('deploy/nginx-scale-out.conf');
  const appEnv = Object.fromEntries(
    [...scaleOut.matchAll(/^ {6}([A-Z][A-Z0-9_]*):\s*(.+)$/gm)].map((match) => [match[1], match[2].trim()]),
  );

  it('when its app service is read, then it runs two replicas on PostgreSQL and the bucket, with one SESSION_SECRET required of the operator', () => {
    expect(scaleOut).toMatch(/replicas:\s*2/);
    expect(appEnv.DATABASE_URL).toMatch(/^postgres:\/\/files:[^@]+@db:5432\/files$/);
    expect(appEnv.SESSION_SECRET).toMatch(/\$\{SESSION_SECRET:\?/);
    expect(appEnv.S3_BUCKET).toBe('filesharing');
    expect(appEnv.S3_ENDPOINT).toBe('http://s3:9000');
    expect(scaleOut).toContain('mc mb --ignore-existing s3/filesharing');
    // The database's and the bucket's passwords are the ones the app is given.
    expect(appEnv.DATABASE_URL).toContain(`:${/POSTGRES_PASSWORD:\s*(\S+)/.exec(scaleOut)?.[1]}@`);
    expect(appEnv.S3_SECRET_ACCESS_KEY).toBe(/MINIO_ROOT_PASSWORD:\s*(\S+)/.exec(scaleOut)?.[1]);
  });

  it('when the proxy is read, then it mounts the nginx file that exists, streams uploads through and forwards the client address the app trusts', () => {
    expect(scaleOut).toContain('./deploy/nginx-scale-out.conf:/etc/nginx/conf.d/default.conf:ro');
    expect(nginx).toMatch(/proxy_request_buffering off;/);
    expect(nginx).toMatch(/client_max_body_size 0;/);
    expect(nginx).toMatch(/proxy_set_header X-Forwarded-For \$remote_addr;/);
    expect(appEnv.TRUST_PROXY).toBe('"1"');
  });
});

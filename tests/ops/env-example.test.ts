// Every variable is documented in .env.example, and server/config.ts is the only
// reader of the environment. These tests fail when the two lists drift apart, when a variable is
// listed but never read, or when some other source file reads process.env behind config's back.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES, loadConfig } from '../../server/config';
import { ROOT, tempDir, TEST_SECRET } from '../helpers/app';

const envExample = fs.readFileSync(path.join(ROOT, '.env.example'), 'utf8');

/** Names assigned in .env.example, commented out (`# PORT=3000`) or not (`PORT=3000`). */
function documentedNames(text: string): string[] {
  const names = [...text.matchAll(/^[ \t]*#?[ \t]*([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]);
  return names;
}

/** Each documented name with the value its line shows ('' for `# NAME=`). */
function documentedValues(text: string): [string, string][] {
  return [...text.matchAll(/^[ \t]*#?[ \t]*([A-Z][A-Z0-9_]*)=(.*)$/gm)].map((match) => [match[1], match[2].trim()]);
}

/** Every .ts/.tsx/.js/.mjs file under the given folders (of the project, not node_modules). */
function sourceFiles(...folders: string[]): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') walk(full);
      } else if (/\.(ts|tsx|js|mjs|cjs)$/.test(entry.name)) {
        files.push(full);
      }
    }
  };
  for (const folder of folders) if (fs.existsSync(path.join(ROOT, folder))) walk(path.join(ROOT, folder));
  return files;
}

/** Ways of reading the environment: process.env.X, process.env['X'], { X } = process.env, env.X, import.meta.env. */
const ENV_READS = [
  /\bprocess\.env\b/g,
  /\benv\.[A-Z][A-Z0-9_]*\b/g,
  /\benv\[\s*['"`][A-Z][A-Z0-9_]*['"`]\s*\]/g,
  /\bimport\.meta\.env\b/g,
];

describe('.env.example', () => {
  it('when config reads a variable, then .env.example documents it as NAME=, and the other way round', () => {
    const documented = documentedNames(envExample);
    expect(new Set(documented).size, 'a variable is documented twice').toBe(documented.length);
    expect([...documented].sort()).toEqual([...CONFIG_VARIABLES].sort());
  });

  it('when a variable is documented, then a comment line explains it right above its assignment', () => {
    const lines = envExample.split('\n');
    for (const name of CONFIG_VARIABLES) {
      const at = lines.findIndex((line) => new RegExp(`^[ \\t]*#?[ \\t]*${name}=`).test(line));
      const above = lines[at - 1] ?? '';
      expect(above, `${name} has no explanation above it`).toMatch(/^#\s+\S.{10,}/);
      expect(above, `${name}: the line above is another assignment`).not.toMatch(/^#?\s*[A-Z][A-Z0-9_]*=/);
    }
  });

  it('when a line shows a value, then it is the default: the configuration is the same with it as without it', () => {
    // On the disk and on a bucket, so that what only a bucket reads (S3_*) is compared too.
    const bases = [{}, { S3_BUCKET: 'some-bucket' }];
    for (const [name, value] of documentedValues(envExample)) {
      if (value === '') continue;
      // Relative to the working directory, and loading it would create ./data here: compared as text.
      if (name === 'DATA_DIR') {
        expect(value).toBe('./data');
        continue;
      }
      for (const base of bases) {
        const env = { DATA_DIR: tempDir('fs-env-example-'), SESSION_SECRET: TEST_SECRET, ...base };
        // What was set is recorded for the admin console (settingsInForce): the rest must not differ.
        const { settingsInForce: _set, ...withLine } = loadConfig({ ...env, [name]: value });
        const { settingsInForce: _unset, ...withoutLine } = loadConfig(env);
        expect(withLine, `${name}=${value} is not the default`).toEqual(withoutLine);
      }
    }
  });

  it('when the header says who reads a .env file, then it is Docker (--env-file, compose env_file) and not npm start', () => {
    const header = envExample.slice(0, envExample.indexOf('\n\n'));
    expect(header).toContain('--env-file .env');
    expect(header).toContain('env_file: .env');
    expect(header).toMatch(/`npm start` and the npm run CLIs do not read\s+#?\s*\.env/);
    const compose = fs.readFileSync(path.join(ROOT, 'compose.yaml'), 'utf8');
    expect(compose).toMatch(/^\s+env_file:\s*\.env\s*$/m);
    expect(fs.readFileSync(path.join(ROOT, 'scripts/start.mjs'), 'utf8')).not.toMatch(/\.env\b|dotenv|--env-file/);
  });

  it('when PORT=0 is described, then it says to set BASE_URL, whose default would say port 0', () => {
    const lines = envExample.split('\n');
    const at = lines.findIndex((line) => /^#?\s*PORT=/.test(line));
    const comment = lines.slice(0, at).reverse();
    const block = comment
      .slice(
        0,
        comment.findIndex((line) => !line.startsWith('# ')),
      )
      .reverse()
      .join(' ');
    expect(block).toMatch(/\b0 picks a free one: then set BASE_URL/);
    expect(loadConfig({ DATA_DIR: tempDir('fs-env-example-'), SESSION_SECRET: TEST_SECRET, PORT: '0' }).baseUrl).toBe(
      'http://localhost:0',
    );
  });

  it('when the README configuration table is read, then it lists exactly the same variables', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const section = /^## Configuration\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1] ?? '';
    const tableNames = [...section.matchAll(/^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|/gm)].map((match) => match[1]);
    expect(tableNames.sort()).toEqual([...CONFIG_VARIABLES].sort());
  });
});

describe('config.ts is the only reader of the environment', () => {
  it('when server, CLI and app sources are searched for environment reads, then only server/config.ts has any', () => {
    const configFile = path.join(ROOT, 'server/config.ts');
    const offenders: string[] = [];
    for (const file of sourceFiles('server', 'cli', 'app')) {
      if (file === configFile) continue;
      const text = fs.readFileSync(file, 'utf8');
      for (const pattern of ENV_READS) {
        for (const match of text.matchAll(pattern)) {
          const line = text.slice(0, match.index).split('\n').length;
          offenders.push(`${path.relative(ROOT, file)}:${line}: ${match[0]}`);
        }
      }
    }
    expect(offenders, 'read the variable in server/config.ts (CONFIG_VARIABLES) and pass the value on').toEqual([]);
  });

  it('when config.ts reads the environment, then it is only through its schema of the listed variables', () => {
    const source = fs.readFileSync(path.join(ROOT, 'server/config.ts'), 'utf8');
    // Direct reads of a named variable would bypass the schema (and so .env.example).
    expect(
      source.match(/\bprocess\.env\.[A-Z]\w*|\bprocess\.env\[\s*['"`]|\benv\.[A-Z][A-Z0-9_]*\b|\benv\[/g) ?? [],
    ).toEqual([]);
    expect(source).toMatch(/environmentSchema\.safeParse\(env\)/);
  });

  it('when the pattern is tried on a reader it must catch, then it catches it (the search is not blind)', () => {
    const samples = [
      'const p = process.env.PORT;',
      'const { HOST } = process.env;',
      'x = env.SECRET_THING',
      "y = env['OTHER']",
    ];
    for (const sample of samples) {
      expect(
        ENV_READS.some((pattern) => new RegExp(pattern.source).test(sample)),
        sample,
      ).toBe(true);
    }
  });
});

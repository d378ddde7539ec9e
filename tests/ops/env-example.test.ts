// Every variable is documented in .env.example, and server/config.ts is the only
// reader of the environment. These tests fail when the two lists drift apart, when a variable is
// listed but never read, or when some other source file reads process.env behind config's back.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES } from '../../server/config';
import { ROOT } from '../helpers/app';

const envExample = fs.readFileSync(path.join(ROOT, '.env.example'), 'utf8');

/** Names assigned in .env.example, commented out (`# PORT=3000`) or not (`PORT=3000`). */
function documentedNames(text: string): string[] {
  const names = [...text.matchAll(/^[ \t]*#?[ \t]*([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]);
  return names;
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
const ENV_READS = [/\bprocess\.env\b/g, /\benv\.[A-Z][A-Z0-9_]*\b/g, /\benv\[\s*['"`][A-Z][A-Z0-9_]*['"`]\s*\]/g, /\bimport\.meta\.env\b/g];

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
    expect(source.match(/\bprocess\.env\.[A-Z]\w*|\bprocess\.env\[\s*['"`]|\benv\.[A-Z][A-Z0-9_]*\b|\benv\[/g) ?? []).toEqual([]);
    expect(source).toMatch(/environmentSchema\.safeParse\(env\)/);
  });

  it('when the pattern is tried on a reader it must catch, then it catches it (the search is not blind)', () => {
    const samples = ["const p = process.env.PORT;", "const { HOST } = process.env;", "x = env.SECRET_THING", "y = env['OTHER']"];
    for (const sample of samples) {
      expect(ENV_READS.some((pattern) => new RegExp(pattern.source).test(sample)), sample).toBe(true);
    }
  });
});

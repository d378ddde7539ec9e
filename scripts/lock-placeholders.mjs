// Run after any `npm install` that changes package-lock.json, then commit the lock.
//
// The registry these machines reach does not serve every platform's optional native package
// (rollup's @rollup/rollup-<os>-<cpu>, pulled in by vite). npm 11.16+ then leaves them out of
// the lock file and its own `npm ci` refuses that lock ("Missing: … from lock file", npm/cli
// #9846). npm 11.13 wrote an inert optional entry instead; this script adds those entries back.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

function missingFromLock() {
  try {
    execFileSync('npm', ['ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund'], { stdio: 'pipe' });
    return [];
  } catch (error) {
    const output = `${error.stdout}${error.stderr}`;
    return [...output.matchAll(/Missing: (.+?)@\S* from lock file/g)].map((match) => match[1]);
  }
}

const missing = [...new Set(missingFromLock())];
if (missing.length === 0) {
  console.log('package-lock.json is complete: npm ci accepts it.');
  process.exit(0);
}

const lock = JSON.parse(fs.readFileSync('package-lock.json', 'utf8'));
for (const name of missing) {
  const parent = Object.values(lock.packages).find((entry) => entry.optionalDependencies?.[name]);
  if (!parent) throw new Error(`No package in the lock asks for ${name}`);
  lock.packages[`node_modules/${name}`] = {
    version: parent.optionalDependencies[name],
    dev: parent.dev || undefined,
    optional: true,
  };
  console.log(`placeholder: ${name}@${parent.optionalDependencies[name]}`);
}
fs.writeFileSync('package-lock.json', `${JSON.stringify(lock, null, 2)}\n`);
const left = missingFromLock();
if (left.length) throw new Error(`still missing: ${left.join(', ')}`);
console.log('package-lock.json fixed: npm ci accepts it.');

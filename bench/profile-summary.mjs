// Summarises a V8 .cpuprofile (node --cpu-prof): self time by package and by function, and the
// callers of the hottest functions; optionally only a time window of the profile.
//   node bench/profile-summary.mjs <file.cpuprofile> [--top=25] [--from=<s>] [--to=<s>] [--timeline] [--callers=<name>]
import fs from 'node:fs';

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--'));
const opt = (name, fallback) => {
  const hit = args.find((a) => a.startsWith(`--${name}=`));
  return hit ? hit.slice(name.length + 3) : fallback;
};
if (!file) {
  process.stderr.write(
    'usage: profile-summary.mjs <file.cpuprofile> [--top=25] [--from=s] [--to=s] [--timeline] [--callers=name]\n',
  );
  process.exit(2);
}
const top = Number(opt('top', 25));
const from = Number(opt('from', 0)) * 1e6;
const to = Number(opt('to', Infinity)) * 1e6;
const callersOf = opt('callers', null);

const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parentOf = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);

const where = (frame) => {
  const url = frame.url || '';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (pkg) return pkg;
  if (url.startsWith('node:')) return 'node core';
  if (!url) return frame.functionName.startsWith('(') ? frame.functionName : '(native)';
  return url.replace(/^file:\/\/.*\/(dist|bench)\//, '$1/');
};
const label = (id) => {
  const { callFrame } = byId.get(id);
  return `${callFrame.functionName || '(anonymous)'}  ${where(callFrame)}:${callFrame.lineNumber + 1}`;
};

const selfMs = new Map();
const timeline = new Map();
let t = 0;
for (let i = 0; i < profile.samples.length; i++) {
  t += profile.timeDeltas[i] ?? 0;
  if (t < from || t > to) continue;
  const id = profile.samples[i];
  const ms = (profile.timeDeltas[i + 1] ?? profile.timeDeltas[i] ?? 0) / 1000;
  selfMs.set(id, (selfMs.get(id) ?? 0) + ms);
  const second = Math.floor(t / 1e6);
  const bucket = timeline.get(second) ?? { busy: 0, all: 0 };
  bucket.all += ms;
  if (byId.get(id).callFrame.functionName !== '(idle)') bucket.busy += ms;
  timeline.set(second, bucket);
}
const total = [...selfMs.values()].reduce((a, b) => a + b, 0);

if (args.includes('--timeline')) {
  process.stdout.write('second  busy%\n');
  for (const [second, { busy, all }] of [...timeline].sort((a, b) => a[0] - b[0])) {
    process.stdout.write(`${String(second).padStart(6)}  ${((100 * busy) / all).toFixed(0).padStart(4)}%\n`);
  }
}

const byFunction = new Map();
const byPackage = new Map();
for (const [id, ms] of selfMs) {
  byFunction.set(label(id), (byFunction.get(label(id)) ?? 0) + ms);
  const pkg = where(byId.get(id).callFrame);
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + ms);
}
const show = (title, map, n) => {
  process.stdout.write(`\n${title} (total ${total.toFixed(0)} ms sampled)\n`);
  for (const [key, ms] of [...map].sort((a, b) => b[1] - a[1]).slice(0, n)) {
    process.stdout.write(`${ms.toFixed(0).padStart(8)} ms ${((100 * ms) / total).toFixed(1).padStart(5)}%  ${key}\n`);
  }
};
show('Self time by package/file', byPackage, 20);
show('Self time by function', byFunction, top);

if (callersOf) {
  // Stacks (5 frames up) that end in a function whose label contains `callersOf`.
  const stacks = new Map();
  for (const [id, ms] of selfMs) {
    if (!label(id).includes(callersOf)) continue;
    const frames = [];
    for (let cur = parentOf.get(id); cur !== undefined && frames.length < 6; cur = parentOf.get(cur))
      frames.push(label(cur));
    const key = frames.join('\n      < ');
    stacks.set(key, (stacks.get(key) ?? 0) + ms);
  }
  process.stdout.write(`\nCallers of "${callersOf}"\n`);
  for (const [key, ms] of [...stacks].sort((a, b) => b[1] - a[1]).slice(0, 8)) {
    process.stdout.write(`${ms.toFixed(0).padStart(8)} ms  ${key}\n\n`);
  }
}

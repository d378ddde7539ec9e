// The login phase: POST /api/v1/auth/login against bcryptjs.compare alone.
import { createRequire } from 'node:module';
import { assert, log } from '../lib/log.mjs';
import { record } from '../lib/results.mjs';
import { PASSWORD, S } from '../lib/settings.mjs';
import { median, percentile, round } from '../lib/stats.mjs';

const require = createRequire(import.meta.url);

export async function measureLogin(doLogin) {
  log(`login: ${S.logins} sequential logins`);
  const bcrypt = require('bcryptjs');
  const hash = bcrypt.hashSync(PASSWORD, 10);
  await doLogin();
  const service = [];
  for (let i = 0; i < S.logins; i++) {
    const res = await doLogin();
    assert(res.status === 200, `login ${res.status}`);
    service.push(res.ms);
  }
  const bare = [];
  for (let i = 0; i < S.logins; i++) {
    const t0 = process.hrtime.bigint();
    assert(await bcrypt.compare(PASSWORD, hash), 'bcrypt compare');
    bare.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const note = 'baseline: bcryptjs.compare (cost 10) alone, in the bench process';
  record({
    group: 'login',
    measure: 'login p50 (ms)',
    unit: 'ms',
    service: round(median(service)),
    baseline: round(median(bare)),
    note,
    samples: service.map((x) => round(x)),
  });
  record({
    group: 'login',
    measure: 'login p99 (ms)',
    unit: 'ms',
    service: round(percentile(service, 0.99)),
    baseline: round(percentile(bare, 0.99)),
    note,
  });
}

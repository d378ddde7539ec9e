// The activity log (ADR 0087): sign-ins and their failures, account and admin changes, tokens,
// deletions, share settings and file requests are each recorded with who, from where, on what
// and how it ended; admins read them on /api/v1/admin/audit (filtered) and export them as JSON
// lines; anyone else meets 404. An event that cannot be written fails nothing and is logged.
// Runs on both backends.
import { ActivityEventSchema } from '../../server/db/entities/activity-event.entity';
import { UserSchema } from '../../server/db/entities/user.entity';
import { pruneActivityEvents } from '../../server/services/activity';
import type { TestApp } from '../helpers/app';
import { describe, expect, test } from '../helpers/fixtures';
import { getPage, visibleText } from '../helpers/pages-fixtures';
import { allowErrorLogs, takeErrorLogs } from '../setup/expected-errors';

const PASSWORD = 'a perfectly fine password';

interface Entry {
  actor: { kind: string; id: string | null; name: string | null };
  address: string | null;
  action: string;
  target: { kind: string; id: string | null; name: string | null } | null;
  outcome: string;
  detail: string | null;
}

function send(app: TestApp, path: string, method: string, cookie: string, body?: unknown) {
  return fetch(`${app.url}${path}`, {
    method,
    headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

function login(app: TestApp, username: string, password: string) {
  return fetch(`${app.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
}

/** The trail as the admin reads it (newest first), filtered by `query`. */
async function trail(app: TestApp, cookie: string, query: Record<string, string> = {}): Promise<Entry[]> {
  const res = await fetch(`${app.url}/api/v1/admin/audit?${new URLSearchParams(query)}`, { headers: { cookie } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { events: Entry[] }).events;
}

describe('the activity log', () => {
  test.beforeAll(async ({ app, alice }) => {
    await app.orm.em.fork().nativeUpdate(UserSchema, { usernameKey: alice.username }, { isAdmin: true });
  });

  test('when someone who is not an admin asks for the trail or its export, then it is 404', async ({ app, bob }) => {
    for (const path of ['/api/v1/admin/audit', '/api/v1/admin/audit/export']) {
      expect((await fetch(`${app.url}${path}`, { headers: { cookie: bob.cookie } })).status, path).toBe(404);
      expect((await fetch(`${app.url}${path}`)).status, path).toBe(404);
    }
    expect((await getPage(app, '/admin/audit', bob.cookie)).status).toBe(404);
  });

  test('when people sign in, fail to and sign out, then each is recorded with who, how and the outcome, and each sees their own on the settings page', async ({
    app,
    alice,
    bob,
  }) => {
    expect((await login(app, bob.username, 'the wrong password')).status).toBe(401);
    expect((await login(app, 'nobody-at-all', 'the wrong password')).status).toBe(401);
    const signedIn = await login(app, bob.username, bob.password);
    expect(signedIn.status).toBe(200);
    const cookie = signedIn.headers.getSetCookie()[0].split(';')[0];
    expect((await send(app, '/api/v1/auth/logout', 'POST', cookie)).status).toBe(200);

    const bobs = await trail(app, alice.cookie, { who: bob.username });
    expect(bobs.slice(0, 3).map((entry) => [entry.action, entry.outcome, entry.detail, entry.actor.id])).toEqual([
      ['sign-out', 'success', null, bob.id],
      ['sign-in', 'success', 'password', bob.id],
      ['sign-in', 'failure', 'password, wrong', bob.id],
    ]);
    expect(bobs[0].address).toBeTruthy();
    const [unknown] = await trail(app, alice.cookie, { who: 'nobody-at-all' });
    expect(unknown).toMatchObject({
      action: 'sign-in',
      outcome: 'failure',
      detail: 'password, no such user',
      actor: { kind: 'guest', id: null, name: 'nobody-at-all' },
    });

    const settings = await getPage(app, '/settings', bob.cookie);
    const text = visibleText(await settings.text());
    expect(text).toContain('Recent sign-ins');
    expect(text).toContain('failed');
    expect(text).not.toContain('nobody-at-all');
  });

  test('when an admin makes, changes, signs out and deletes an account, then each step is recorded as theirs, on that account', async ({
    app,
    alice,
  }) => {
    const steps: Array<[string, string, unknown]> = [
      ['POST', '/api/v1/admin/users', { username: 'watched', password: PASSWORD }],
      ['PATCH', '/api/v1/admin/users/watched', { quota: '2GB' }],
      ['PATCH', '/api/v1/admin/users/watched', { admin: true }],
      ['PATCH', '/api/v1/admin/users/watched', { admin: false }],
      ['PATCH', '/api/v1/admin/users/watched', { disabled: true }],
      ['PATCH', '/api/v1/admin/users/watched', { disabled: false }],
      ['POST', '/api/v1/admin/users/watched/sign-out', undefined],
      ['POST', '/api/v1/admin/users/watched/reset-2fa', undefined],
      ['DELETE', '/api/v1/admin/users/watched', undefined],
    ];
    for (const [method, path, body] of steps)
      expect((await send(app, path, method, alice.cookie, body)).status).toBeLessThan(300);
    const events = (await trail(app, alice.cookie, { who: alice.username }))
      .filter((entry) => entry.target?.name === 'watched')
      .reverse();
    expect(events.map((entry) => [entry.action, entry.detail])).toEqual([
      ['account.created', null],
      ['account.quota', '2000000000 bytes'],
      ['account.admin', 'on'],
      ['account.admin', 'off'],
      ['account.disabled', null],
      ['account.enabled', null],
      ['sessions.ended', 'all, 0, by an admin'],
      ['two-factor.off', 'reset by an admin'],
      ['account.deleted', '0 files, 0 bytes'],
    ]);
    for (const entry of events) expect(entry.actor).toMatchObject({ kind: 'user', name: alice.username });
  });

  test('when a user makes and revokes a token, changes share settings, deletes a file and a collection, and makes and closes a request, then each is recorded', async ({
    app,
    alice,
    bob,
  }) => {
    const token = await bob.createToken('for the trail');
    const tokens = (await (await bob.fetch('/api/v1/tokens')).json()) as {
      tokens: Array<{ id: string; name: string }>;
    };
    const made = tokens.tokens.find((one) => one.name === 'for the trail');
    expect((await send(app, `/api/v1/tokens/${made?.id}`, 'DELETE', bob.cookie)).status).toBe(200);
    const kept = await bob.upload('kept', 'kept.txt');
    const gone = await bob.upload('gone', 'gone.txt');
    // With the token while it lasted: the actor is the token's user, said as a token.
    expect(token).toMatch(/^fsk_/);
    expect((await send(app, `/api/v1/files/${kept.file.id}`, 'PATCH', bob.cookie, { maxDownloads: 5 })).status).toBe(
      200,
    );
    expect((await send(app, `/api/v1/files/${gone.file.id}`, 'DELETE', bob.cookie)).status).toBe(200);
    const collection = await send(app, '/api/v1/collections', 'POST', bob.cookie, {
      title: 'Trail',
      files: [{ id: kept.file.id }],
    });
    const collectionId = ((await collection.json()) as { collection: { id: string } }).collection.id;
    expect((await send(app, `/api/v1/collections/${collectionId}`, 'DELETE', bob.cookie)).status).toBe(200);
    const request = await send(app, '/api/v1/requests', 'POST', bob.cookie, { title: 'Scans' });
    const requestId = ((await request.json()) as { request: { id: string } }).request.id;
    expect((await send(app, `/api/v1/requests/${requestId}`, 'PATCH', bob.cookie, { closed: true })).status).toBe(200);

    const events = (await trail(app, alice.cookie, { who: bob.username })).reverse();
    const seen = events.map((entry) => [entry.action, entry.target?.name ?? null, entry.detail]);
    for (const expected of [
      ['token.created', 'for the trail', null],
      ['token.revoked', null, null],
      ['share-settings.changed', 'kept.txt', 'maxDownloads'],
      ['file.deleted', 'gone.txt', null],
      ['collection.deleted', 'Trail', null],
      ['file-request.made', 'Scans', null],
      ['file-request.closed', 'Scans', null],
    ])
      expect(seen).toContainEqual(expected);
    const onlyDeletions = await trail(app, alice.cookie, { who: bob.username, action: 'file.deleted' });
    expect(onlyDeletions.map((entry) => entry.target?.name)).toEqual(['gone.txt']);
  });

  test('when the trail is exported since a date, then it is JSON lines, oldest first, from that date on; a filter that is no date is 400', async ({
    app,
    alice,
  }) => {
    const res = await fetch(`${app.url}/api/v1/admin/audit/export?since=2000-01-01`, {
      headers: { cookie: alice.cookie },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/x-ndjson');
    const lines = (await res.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Entry & { at: string });
    expect(lines.length).toBeGreaterThan(5);
    const times = lines.map((line) => line.at);
    expect([...times].sort()).toEqual(times);
    const later = await fetch(`${app.url}/api/v1/admin/audit/export?since=2999-01-01`, {
      headers: { cookie: alice.cookie },
    });
    expect(await later.text()).toBe('');
    // A form's empty date fields filter nothing.
    expect((await trail(app, alice.cookie, { who: '', action: '', since: '', until: '' })).length).toBeGreaterThan(5);
    for (const query of ['since=yesterday', 'until=soon', 'action=file.eaten', 'page=0']) {
      const bad = await fetch(`${app.url}/api/v1/admin/audit?${query}`, { headers: { cookie: alice.cookie } });
      expect(bad.status, query).toBe(400);
    }
    expect(
      (await fetch(`${app.url}/api/v1/admin/audit/export?since=yesterday`, { headers: { cookie: alice.cookie } }))
        .status,
    ).toBe(400);
  });

  test('when an event cannot be written, then what it records still happens, and the failure is logged', async ({
    app,
    bob,
  }) => {
    allowErrorLogs();
    await app.rows('alter table activity_events rename to activity_events_away');
    try {
      expect((await login(app, bob.username, bob.password)).status).toBe(200);
    } finally {
      await app.rows('alter table activity_events_away rename to activity_events');
    }
    const logged = takeErrorLogs().map((line) => JSON.parse(line) as { msg: string; activity?: { action: string } });
    expect(logged.find((line) => line.msg === 'activity event not written')?.activity).toMatchObject({
      action: 'sign-in',
      actorName: bob.username,
    });
  });

  test('when events are older than AUDIT_RETENTION_DAYS, then the housekeeping removes them and keeps the rest', async ({
    app,
  }) => {
    const em = app.orm.em.fork();
    const day = 86_400_000;
    const old = {
      actorKind: 'system',
      actorId: null,
      actorName: null,
      address: null,
      userAgent: null,
      action: 'account.created',
      targetKind: null,
      targetId: null,
      targetName: null,
      outcome: 'success',
      detail: 'kept for the test',
    } as const;
    await em.insert(ActivityEventSchema, { ...old, id: 'too-old', at: new Date(Date.now() - 400 * day) });
    await em.insert(ActivityEventSchema, { ...old, id: 'young-enough', at: new Date(Date.now() - 300 * day) });
    expect(await pruneActivityEvents({ em, clock: { now: () => Date.now() } }, 365)).toBe(1);
    const left = await app.rows("select id from activity_events where detail = 'kept for the test'");
    expect(left.map((row) => row.id)).toEqual(['young-enough']);
  });
});

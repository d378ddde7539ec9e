// `npm run users -- link-oidc|unlink-oidc` (ADR 0044) as an admin runs it: the built CLI in a
// child process, on the data of a running app whose login page signs in with a real provider.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startApp, type TestApp } from '../helpers/app';
import { roundTripToProvider, sendCallback, startTestProvider, type TestProvider } from '../helpers/oidc-provider';
import { runNode, USERS_JS } from '../helpers/process';

vi.setConfig({ testTimeout: 180_000 });

describe('linking accounts to the provider with the users CLI', () => {
  let provider: TestProvider;
  let app: TestApp;
  beforeAll(async () => {
    provider = await startTestProvider();
    // On SQLite: the CLI opens the same file beside the running app.
    app = await startApp(provider.env);
  });
  afterAll(async () => {
    await app?.close();
    await provider?.stop();
  });

  const users = (args: string[]) => runNode(USERS_JS, args, { env: app.env });

  it('when an admin links a subject, then that identity signs in as the account, the list shows the link, and unlinking ends it', async () => {
    await app.createUser('alice');
    await app.createUser('bob');
    provider.accounts.set('alice-at-acme', {});
    provider.signInAs = 'alice-at-acme';
    expect((await sendCallback(await roundTripToProvider(app.url))).status).toBe(403);

    const linked = await users(['link-oidc', 'alice', 'alice-at-acme']);
    expect(linked.code, linked.stderr).toBe(0);
    expect(linked.stdout).toBe('alice now signs in with the identity alice-at-acme\n');
    expect((await users(['list'])).stdout).toMatch(/^alice {2}.* {2}active {2}signs in with alice-at-acme$/m);
    const listed = JSON.parse((await users(['list', '--json'])).stdout).users;
    expect(listed.find((u: { username: string }) => u.username === 'alice')).toMatchObject({
      oidcSubject: 'alice-at-acme',
    });
    expect(listed.find((u: { username: string }) => u.username === 'bob')).toMatchObject({ oidcSubject: null });

    const signedIn = await sendCallback(await roundTripToProvider(app.url));
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe('/files');

    const taken = await users(['link-oidc', 'bob', 'alice-at-acme']);
    expect(taken.code).toBe(3);
    expect(taken.stderr).toBe('users: The subject "alice-at-acme" is already linked to alice\n');

    const unlinked = await users(['unlink-oidc', 'alice', '--json']);
    expect(unlinked.code, unlinked.stderr).toBe(0);
    expect(JSON.parse(unlinked.stdout)).toMatchObject({ ok: true, changed: true, user: { oidcSubject: null } });
    expect((await sendCallback(await roundTripToProvider(app.url))).status).toBe(403);

    const nobody = await users(['link-oidc', 'nobody', 'x']);
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toBe('users: No user named "nobody"\n');
  });
});

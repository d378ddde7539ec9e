// The set-up the several-instance suites share (tests/scale-out): two apps in this process on one
// PostgreSQL database and one bucket, as behind a load balancer, each with a DATA_DIR of its own
// (what an instance keeps to itself), and one user registered through the first.
//
//   let a: TestApp;
//   let b: TestApp;
//   let cookie: string;
//   setUpTwoInstances('curator', (instances) => {
//     ({ a, b, cookie } = instances);
//   });
import { afterAll, beforeAll } from 'vitest';
import { startApp, tempDir, type TestApp } from './app';
import { postgresS3Env } from './test-backend';

export interface TwoInstances {
  a: TestApp;
  b: TestApp;
  /** The session cookie (`token=…`) of the user, from a login on `a`; good on both. */
  cookie: string;
}

/** Starts both before the file's tests (and registers `username`); closes both after them. */
export function setUpTwoInstances(username: string, ready: (instances: TwoInstances) => void): void {
  let a: TestApp | undefined;
  let b: TestApp | undefined;
  beforeAll(async () => {
    const shared = await postgresS3Env();
    a = await startApp({ ...shared, DATA_DIR: tempDir() });
    b = await startApp({ ...shared, DATA_DIR: tempDir() });
    await a.createUser(username);
    ready({ a, b, cookie: await a.login(username) });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });
}

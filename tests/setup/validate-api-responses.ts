// Every /api/v1 response any test receives through fetch is checked against the OpenAPI
// document: a response the document does not describe fails the test that got it. So the
// document cannot drift from what the API really answers.
// A worker runs several files in one module graph (vitest.config.ts, isolate: false) and this
// again before each of them: fetch is wrapped once per worker, not once more per file.
import { API_PREFIX, createApiResponseValidator } from '../helpers/openapi-validator';

const WRAPPED = Symbol.for('filesharing.tests.fetchCheckedAgainstOpenApi');
const shared = globalThis as typeof globalThis & { [WRAPPED]?: true };

function methodAndUrl(input: Parameters<typeof fetch>[0], init?: RequestInit): { method: string; url: URL } {
  const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
  return { method, url };
}

if (!shared[WRAPPED]) {
  shared[WRAPPED] = true;
  const validator = createApiResponseValidator();
  const originalFetch = globalThis.fetch;

  globalThis.fetch = async function fetchCheckedAgainstOpenApi(input, init) {
    const response = await originalFetch(input, init);
    const { method, url } = methodAndUrl(input, init);
    if (!url.pathname.startsWith(`${API_PREFIX}/`) || method === 'HEAD') return response;
    let body: string;
    try {
      body = await response.clone().text();
    } catch {
      return response; // The test aborted the request: there is no whole response to check.
    }
    const problems = validator.check(method, url.pathname, response.status, response.headers.get('content-type'), body);
    if (problems.length > 0)
      throw new Error(
        `The response does not match the OpenAPI document:\n${problems.join('\n')}\nBody: ${body.slice(0, 500)}`,
      );
    return response;
  };
}

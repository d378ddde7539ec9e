// Every /api/v1 response any test receives through fetch is checked against the OpenAPI
// document: a response the document does not describe fails the test that got it. So the
// document cannot drift from what the API really answers.
import { API_PREFIX, createApiResponseValidator } from '../helpers/openapi-validator';

const validator = createApiResponseValidator();
const originalFetch = globalThis.fetch;

function methodAndUrl(input: Parameters<typeof fetch>[0], init?: RequestInit): { method: string; url: URL } {
  const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
  return { method, url };
}

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

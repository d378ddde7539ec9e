// The OpenAPI document (ADR 0017): served at /api/v1/openapi.json, naming every route of the
// router and nothing else, with the bearer and cookie schemes. That real responses match it is
// checked on every API call of the suite (tests/setup/validate-api-responses.ts); here, that the
// check itself can fail.
import type { Router } from 'express';
import { apiV1Router } from '../../server/doors/rest/v1';
import { describe, expect, test } from '../helpers/fixtures';
import { createApiResponseValidator } from '../helpers/openapi-validator';

/** `METHOD /path` of every route the Express router really has, `:id` written `{id}`. */
function routesOf(router: Router): string[] {
  const routes: string[] = [];
  for (const layer of router.stack) {
    const route = layer.route as { path: string; methods: Record<string, boolean> } | undefined;
    if (!route) continue;
    for (const method of Object.keys(route.methods))
      routes.push(`${method.toUpperCase()} ${route.path.replace(/:(\w+)/g, '{$1}')}`);
  }
  return routes.sort();
}

describe('the OpenAPI document', () => {
  test('when it is fetched, then it is OpenAPI 3.1 JSON with the bearer token and the session cookie as security schemes, open to anyone', async ({
    app,
  }) => {
    const res = await fetch(`${app.url}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const document = await res.json();
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers).toEqual([{ url: '/api/v1' }]);
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(document.components.securitySchemes.cookieAuth).toMatchObject({
      type: 'apiKey',
      in: 'cookie',
      name: 'token',
    });
    // Token management needs a session; the file routes take either.
    expect(document.paths['/tokens'].post.security).toEqual([{ cookieAuth: [] }]);
    expect(document.paths['/files'].post.security).toEqual([{ bearerAuth: [] }, { cookieAuth: [] }]);
    expect(document.paths['/auth/login'].post.security).toEqual([]);
  });

  test('when the router’s routes are compared with the document, then every route is documented and every documented operation exists', () => {
    const documented = createApiResponseValidator().operations.sort();
    const routes = routesOf(apiV1Router());
    expect(routes.length).toBeGreaterThanOrEqual(14);
    expect(documented).toEqual(routes);
  });

  test('when the request schemas are read, then they are the ones the services validate with (limits and required fields included)', async ({
    app,
  }) => {
    const document = await (await fetch(`${app.url}/api/v1/openapi.json`)).json();
    const tokenBody = document.paths['/tokens'].post.requestBody.content['application/json'].schema;
    expect(tokenBody).toMatchObject({
      required: ['name'],
      additionalProperties: false,
      properties: { name: { maxLength: 100 } },
    });
    const passwordBody = document.paths['/me/password'].post.requestBody.content['application/json'].schema;
    expect(passwordBody.required).toEqual(['currentPassword', 'newPassword']);
    expect(passwordBody.properties.newPassword.minLength).toBe(8);
    const upload = document.paths['/files'].post.requestBody.content['multipart/form-data'].schema;
    expect(upload.required).toEqual(['file']);
    expect(Object.keys(upload.properties)).toEqual(['expiresAt', 'expiresIn', 'maxDownloads', 'password', 'file']);
    const limit = document.paths['/files'].get.parameters.find((p: { name: string }) => p.name === 'limit');
    expect(limit.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 1000 });
  });
});

describe('the response check the whole suite runs', () => {
  const validator = createApiResponseValidator();
  const file = {
    id: 'abc',
    userId: 'u1',
    originalName: 'a.txt',
    mimeType: 'text/plain',
    size: 3,
    storedName: 'abc.bin',
    createdAt: '2026-11-23T10:00:00.000Z',
    expiresAt: null,
    maxDownloads: null,
    downloads: 0,
    views: 0,
    hasPassword: false,
  };

  test('when any test calls fetch, then it goes through the check (the suite’s own responses are validated)', () => {
    expect(globalThis.fetch.name).toBe('fetchCheckedAgainstOpenApi');
  });

  test('when a response matches the document, then it passes', () => {
    expect(
      validator.check(
        'GET',
        '/api/v1/files',
        200,
        'application/json; charset=utf-8',
        JSON.stringify({ files: [{ ...file, request: null, receivedFrom: null }] }),
      ),
    ).toEqual([]);
    expect(
      validator.check(
        'DELETE',
        '/api/v1/files/abc',
        404,
        'application/json',
        JSON.stringify({ error: 'File not found' }),
      ),
    ).toEqual([]);
  });

  test.each([
    ['a field of the wrong type', 'GET', '/api/v1/files', 200, { files: [{ ...file, size: '3' }] }],
    ['a field the document does not name', 'GET', '/api/v1/files', 200, { files: [{ ...file, password: 'secret' }] }],
    ['a missing field', 'POST', '/api/v1/files', 201, { file }],
    ['a status the document does not list', 'GET', '/api/v1/tokens', 204, {}],
    ['an error without its message', 'GET', '/api/v1/sessions', 401, { message: 'Unauthorized' }],
    ['a success from an undocumented route', 'GET', '/api/v1/admin', 200, {}],
  ])('when a response has %s, then the check reports it', (_case, method, path, status, body) => {
    expect(validator.check(method, path, status, 'application/json', JSON.stringify(body)).length).toBeGreaterThan(0);
  });

  test('when a documented JSON route answers something else than JSON, then the check reports it', () => {
    expect(validator.check('GET', '/api/v1/files', 200, 'text/html', '<p>hi</p>')).toEqual([
      expect.stringContaining('expected JSON'),
    ]);
  });
});

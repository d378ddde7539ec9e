// The OpenAPI 3.1 document of /api/v1 (ADR 0017), served at /api/v1/openapi.json. Request
// bodies and parameters are the zod schemas the services validate with (server/schemas.ts);
// responses are described here and checked against real responses by every test that calls
// the API (tests/setup/validate-api-responses.ts).
// Each resource's module describes its own routes; this joins them in the document's order.
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { adminPaths } from './admin';
import { collectionPaths } from './collections';
import { fileRequestPaths } from './file-requests';
import { fileListPaths, oneFilePaths } from './files';
import { mePaths } from './me';
import { json, SESSION_OR_TOKEN } from './openapi-parts';
import { authPaths, sessionPaths } from './sessions';
import { tokenPaths } from './tokens';
import { twoFactorPaths } from './two-factor';
import { resumableUploadPaths } from './uploads';
import { webhookPaths } from './webhooks';

function describeSecuritySchemes(registry: OpenAPIRegistry): void {
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description:
      'A personal access token (fsk_…) made on the settings page, with POST /tokens, or with `npm run tokens`.',
  });
  registry.registerComponent('securitySchemes', 'cookieAuth', {
    type: 'apiKey',
    in: 'cookie',
    name: 'token',
    description: 'The session cookie set by POST /auth/login.',
  });
}

function describeThisDocument(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/openapi.json',
    tags: ['Meta'],
    summary: 'This document',
    security: [],
    responses: {
      200: { description: 'The OpenAPI 3.1 document', content: json(z.object({ openapi: z.string() }).passthrough()) },
    },
  });
}

let document: ReturnType<OpenApiGeneratorV31['generateDocument']> | null = null;

/** The document (built once: it depends on nothing but the code). Paths are relative to /api/v1. */
export function openApiDocument() {
  if (document) return document;
  const registry = new OpenAPIRegistry();
  describeSecuritySchemes(registry);
  authPaths(registry);
  fileListPaths(registry);
  resumableUploadPaths(registry);
  oneFilePaths(registry);
  collectionPaths(registry);
  tokenPaths(registry);
  mePaths(registry);
  sessionPaths(registry);
  describeThisDocument(registry);
  twoFactorPaths(registry);
  fileRequestPaths(registry);
  webhookPaths(registry);
  adminPaths(registry);
  document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'File sharing API',
      version: '1',
      description:
        'Upload, list, share and delete files; manage API tokens and sessions. docs/api.md explains it with curl examples.',
    },
    servers: [{ url: '/api/v1' }],
    security: SESSION_OR_TOKEN,
  });
  return document;
}

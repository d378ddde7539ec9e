// Checks an /api/v1 response against the OpenAPI document (server/doors/rest/openapi.ts) with ajv's
// JSON Schema 2020-12 (what OpenAPI 3.1 uses). Used on every response the test suite receives
// (tests/setup/validate-api-responses.ts) and by tests/api/openapi.test.ts.
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../server/doors/rest/openapi';

export const API_PREFIX = '/api/v1';

interface Operation {
  method: string;
  /** The document's path, e.g. `/files/{id}`. */
  path: string;
  pattern: RegExp;
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
}

type Document = ReturnType<typeof openApiDocument>;

function operationsOf(document: Document): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(item as Record<string, { responses?: Operation['responses'] }>)) {
      if (!operation?.responses) continue;
      // Express routes ignore case and a trailing slash; ids are one path segment.
      const pattern = new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}/?$`, 'i');
      operations.push({ method: method.toUpperCase(), path, pattern, responses: operation.responses });
    }
  }
  return operations;
}

export interface ApiResponseValidator {
  /** Every operation of the document, as `METHOD /path`. */
  operations: string[];
  /** Problems with a response (empty when it matches). `pathname` is the full URL path. */
  check(method: string, pathname: string, status: number, contentType: string | null, body: string): string[];
}

export function createApiResponseValidator(document: Document = openApiDocument()): ApiResponseValidator {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  // The components, so that `$ref: '#/components/schemas/…'` resolves inside each schema.
  ajv.addSchema({ $id: 'api', components: document.components ?? {} });
  const compiled = new Map<unknown, ValidateFunction>();
  const compile = (schema: unknown) => {
    let validate = compiled.get(schema);
    if (!validate) {
      const rooted = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"api#/components/'));
      validate = ajv.compile(rooted);
      compiled.set(schema, validate);
    }
    return validate;
  };
  const errorSchema = (document.components?.schemas as Record<string, unknown> | undefined)?.Error;
  const operations = operationsOf(document);

  return {
    operations: operations.map((operation) => `${operation.method} ${operation.path}`),
    check(method, pathname, status, contentType, body) {
      const path = pathname.slice(API_PREFIX.length) || '/';
      const operation = operations.find((candidate) => candidate.method === method && candidate.pattern.test(path));
      const where = `${method} ${pathname} → ${status}`;
      const response = operation ? (operation.responses[String(status)] ?? operation.responses.default) : undefined;
      // Routes the document does not name answer 404 (or 405-like errors): the error shape.
      const schema = response
        ? response.content?.['application/json']?.schema
        : status >= 400
          ? errorSchema
          : undefined;
      // A response that may also be plain text (tus answers without a body): checked as text.
      const textSchema = response?.content?.['text/plain']?.schema;
      if (textSchema !== undefined && contentType?.startsWith('text/plain')) {
        const validateText = compile(textSchema);
        return validateText(body)
          ? []
          : [`${where}: the text body does not match: ${JSON.stringify(validateText.errors)}`];
      }
      if (!operation && status < 400)
        return [`${where}: a success from a route the OpenAPI document does not describe`];
      if (!response && operation)
        return [`${where}: status ${status} is not in the OpenAPI document for ${operation.method} ${operation.path}`];
      if (schema === undefined) return [];
      if (!contentType?.startsWith('application/json'))
        return [`${where}: expected JSON, got ${contentType ?? 'no Content-Type'}`];
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        return [`${where}: the body is not valid JSON`];
      }
      const validate = compile(schema);
      if (validate(parsed)) return [];
      return (validate.errors ?? []).map(
        (error) => `${where}: ${error.instancePath || '(body)'} ${error.message} (${JSON.stringify(error.params)})`,
      );
    },
  };
}

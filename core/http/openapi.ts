// GET /v1/openapi.json: an OpenAPI 3.1 document built from the endpoint table (schemas.ts), the same
// schema objects the plugin validates and serialises with, so the document is what the server does.

import { packageInfo } from '../index.js';
import type { JsonSchema } from './json-schema.js';
import { ENDPOINTS, ERROR_RESPONSE, LIGHTWIRE_ENDPOINTS, REMOVED_ENDPOINTS, SCENE_PARAM, SELECTOR_PARAM, type Endpoint } from './schemas.js';

/** Which endpoints a document (and a plugin) serves: the cloud's v1, or our own endpoints beside it (renaming, pixels, themes). */
export type ApiSurface = 'v1' | 'lightwire';

/** The endpoints of a surface, and those it answers 410 for. */
export function surfaceEndpoints(api: ApiSurface): { readonly endpoints: readonly Endpoint[]; readonly removed: typeof REMOVED_ENDPOINTS } {
  return api === 'v1' ? { endpoints: ENDPOINTS, removed: REMOVED_ENDPOINTS } : { endpoints: LIGHTWIRE_ENDPOINTS, removed: [] };
}

export interface OpenApiDocument {
  readonly openapi: string;
  readonly info: Record<string, unknown>;
  readonly servers: readonly { url: string }[];
  readonly security: readonly Record<string, never[]>[];
  readonly components: { securitySchemes: Record<string, unknown>; schemas: Record<string, JsonSchema> };
  readonly paths: Record<string, Record<string, Operation>>;
}

export interface Operation {
  readonly operationId: string;
  readonly summary: string;
  readonly 'x-lightwire-scope': string;
  readonly parameters: readonly Record<string, unknown>[];
  readonly requestBody?: { required: boolean; content: Record<string, { schema: JsonSchema }> };
  readonly responses: Record<string, { description: string; content?: Record<string, { schema: JsonSchema }>; headers?: Record<string, unknown> }>;
  readonly deprecated?: boolean;
}

/** `/lights/:selector/state` -> `/lights/{selector}/state`. */
export function openApiPath(path: string): string {
  return path.replace(/:([a-z_]+)/gi, '{$1}');
}

const RATE_HEADERS = {
  'X-RateLimit-Limit': { description: 'Requests allowed per 60-second window.', schema: { type: 'string' } },
  'X-RateLimit-Remaining': { description: 'Requests left in this window.', schema: { type: 'string' } },
  'X-RateLimit-Reset': { description: 'Unix time (seconds) when the next window starts.', schema: { type: 'string' } },
};

const errorRef = { $ref: '#/components/schemas/Error' } as unknown as JsonSchema;
const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: errorRef } }, headers: RATE_HEADERS });

function pathParameters(path: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  if (path.includes(':selector')) out.push({ name: 'selector', in: 'path', required: true, schema: SELECTOR_PARAM });
  if (path.includes(':scene')) out.push({ name: 'scene', in: 'path', required: true, schema: SCENE_PARAM });
  return out;
}

function operation(e: Endpoint): Operation {
  const parameters = pathParameters(e.path);
  for (const [name, schema] of Object.entries(e.query?.properties ?? {})) {
    parameters.push({ name, in: 'query', required: e.query?.required?.includes(name) ?? false, schema });
  }
  const responses: Operation['responses'] = {
    [String(e.status)]: {
      description: e.status === 207 ? 'One result per light (Multi-Status).' : 'OK',
      content: { 'application/json': { schema: e.response } },
      headers: RATE_HEADERS,
    },
  };
  if (e.body?.properties?.fast !== undefined) responses['202'] = { description: 'fast (or async) was true and the request is valid: accepted, no body.', headers: RATE_HEADERS };
  if (e.body) responses['400'] = errorResponse('The body is not JSON or a form, or not an object.');
  responses['401'] = errorResponse('Missing or wrong access token.');
  responses['403'] = errorResponse('The token lacks the scope.');
  if (e.path.includes(':selector') || e.path.includes(':scene')) responses['404'] = errorResponse('The selector matched no light, or no such scene.');
  responses['422'] = errorResponse('A parameter is missing or malformed.');
  responses['426'] = errorResponse('HTTPS is required.');
  responses['429'] = errorResponse('Over the rate limit.');
  return {
    operationId: e.id,
    summary: e.summary,
    'x-lightwire-scope': e.scope,
    parameters,
    ...(e.body
      ? {
          requestBody: {
            required: false,
            content: { 'application/json': { schema: e.body }, 'application/x-www-form-urlencoded': { schema: e.body } },
          },
        }
      : {}),
    responses,
  };
}

export function openApiDocument(prefix: string, api: ApiSurface = 'v1'): OpenApiDocument {
  const paths: Record<string, Record<string, Operation>> = {};
  const { endpoints, removed } = surfaceEndpoints(api);
  for (const e of endpoints) {
    const key = openApiPath(e.path);
    paths[key] = { ...paths[key], [e.method.toLowerCase()]: operation(e) };
  }
  for (const r of removed) {
    paths[openApiPath(r.path)] = {
      [r.method.toLowerCase()]: {
        operationId: `removed${r.path.endsWith('color') ? 'Color' : 'Power'}`,
        summary: `Removed in v1: use ${r.replacement}`,
        'x-lightwire-scope': 'control',
        parameters: pathParameters(r.path),
        deprecated: true,
        responses: { '410': errorResponse('Gone.') },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info:
      api === 'v1'
        ? {
            title: 'Lightwire: the LIFX HTTP API v1, served locally',
            version: packageInfo().version,
            description:
              'A local copy of https://api.lifx.com/v1 backed by the LAN protocol. Unknown parameters are not errors: ' +
              'they come back in `warnings`. Form bodies are accepted as well as JSON.',
          }
        : {
            title: 'Lightwire: renaming, pixels and themes',
            version: packageInfo().version,
            description:
              'Endpoints of our own beside /v1 (the cloud has none): labels, groups and locations written as the LAN protocol asks ' +
              '(https://lan.developer.lifx.com/docs/changing-a-device; always confirmed, no fast), the pixels of matrix lights and ' +
              'themes. Tokens, scopes, errors and warnings as on /v1.',
          },
    servers: [{ url: prefix }],
    security: [{ bearer: [] }, { basic: [] }],
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <token>' },
        basic: { type: 'http', scheme: 'basic', description: 'The token as the user name, an empty password.' },
      },
      schemas: { Error: ERROR_RESPONSE },
    },
    paths,
  };
}

// The local LIFX HTTP API v1 as one encapsulated Fastify plugin: mount it at /v1 and
// a script written for https://api.lifx.com/v1 works by changing its base URL. Auth, rate limit, body
// parsers, the not-found and error handlers all live inside it and touch nothing outside /v1. The same plugin serves
// our own endpoints beside it (namingApi, at /lightwire: renaming, pixels, themes), with the same rules.
//
// One request, in order:
// 1. onRequest: rate-limit headers (always), 426 when HTTPS is required and this is plain HTTP, 429 over
//    the limit, 401/403 for token and scope, the loopback guards when no token is configured (auth.ts).
// 2. Body: JSON (an empty body means "all defaults", depth at most MAX_BODY_DEPTH) or a form.
// 3. The endpoint's schema (schemas.ts): form strings coerced, nulls dropped, unknown keys set aside
//    as the `warnings` of the answer (the cloud's "Unknown params"), the rest checked by Ajv (422 per field).
// 4. The light service, with the selector taken from the raw URL segment (percent-decoded once, by the
//    service), and the HTTP names mapped to its user units (duration -> durationS, ...).
// 5. 207 {results, warnings?}; with fast (or its alias async) 202 and no body, once the request validated.

import formbody from '@fastify/formbody';
import Ajv, { type ValidateFunction } from 'ajv';
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { SetStatesOperation, SetStatesResult, WriteOptions } from '../index.js';
import { clipped, itemRefusal, LightwireError, OPERATIONS, refusal, themeList, type OperationName } from '../index.js';
import { TokenSet, hostOfHeader, isLoopbackHost, type TokenSpec } from './auth.js';
import { isClientGone, rawPath, toProblem, validationProblem, ValidationProblem, type DescribeFailure } from './errors.js';
import { bareObject, coerce, isRecord, nestingDepth, types, unknownParams, withoutRequired, type JsonSchema } from './json-schema.js';
import { ListCache, followLightEvents } from './list-cache.js';
import { openApiDocument, surfaceEndpoints, type ApiSurface } from './openapi.js';
import { RateLimiter } from './rate-limit.js';
import { paramAt, type Endpoint, type OperationId, type Scope } from './schemas.js';
import type { LightApi } from './service-api.js';

/** Largest request body; 50 states with 25 selectors each fit easily. */
export const DEFAULT_BODY_LIMIT_BYTES = 256 * 1024;
/** Deepest JSON accepted: real bodies nest 3 levels; the limit keeps echoing unknown params cheap and safe. */
export const MAX_BODY_DEPTH = 32;

export interface HttpApiOptions {
  readonly service: LightApi;
  /** `TOKEN[:SCOPES]` strings or specs (auth.ts). None: open, loopback only. */
  readonly tokens?: readonly (string | TokenSpec)[];
  /** Requests per minute per caller; null/undefined: not enforced (headers still sent). */
  readonly rateLimit?: number | null;
  /** A limiter to share with the server's own error answers; built from rateLimit when absent. */
  readonly limiter?: RateLimiter;
  /** Answer 426 to requests that did not arrive over TLS (request.protocol, which honours trustProxy). */
  readonly requireHttps?: boolean;
  /** Where the 426 answer sends clients, e.g. https://127.0.0.1:3443/v1. */
  readonly httpsBaseUrl?: string;
  readonly bodyLimitBytes?: number;
  /** Answer List Lights from a cache cleared by every change (default true; list-cache.ts). */
  readonly listCache?: boolean;
  /** Faults of ours (5xx), with their stack; the client only sees "Internal server error". */
  readonly log?: (line: string) => void;
  /** Clock for rate limits and light ages (tests). */
  readonly now?: () => number;
}

interface Resolved {
  readonly service: LightApi;
  readonly tokens: TokenSet;
  readonly limiter: RateLimiter;
  readonly requireHttps: boolean;
  readonly httpsBaseUrl: string | null;
  readonly bodyLimitBytes: number;
  readonly listCache: boolean;
  readonly log: (line: string) => void;
}

function optionError(option: string, reason: string): LightwireError<'OPTIONS_INVALID'> {
  return new LightwireError('OPTIONS_INVALID', { option, reason });
}

/** Checks the plugin's options (a bad one throws before anything listens) and returns them frozen. */
export function resolveHttpApiOptions(options: HttpApiOptions): Resolved {
  if (!isRecord(options)) throw optionError('options', 'must be an object');
  const service = options.service;
  if (typeof service !== 'object' || service === null || typeof service.list !== 'function') {
    throw optionError('service', 'must be a LightService');
  }
  if (options.tokens !== undefined && !Array.isArray(options.tokens)) throw optionError('tokens', 'must be an array');
  const bodyLimitBytes = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  if (!Number.isInteger(bodyLimitBytes) || bodyLimitBytes < 1024 || bodyLimitBytes > 16 * 1024 * 1024) {
    throw optionError('bodyLimitBytes', 'must be an integer from 1024 to 16 MiB');
  }
  if (options.limiter !== undefined && !(options.limiter instanceof RateLimiter)) throw optionError('limiter', 'must be a RateLimiter');
  if (options.limiter !== undefined && options.rateLimit !== undefined) throw optionError('rateLimit', 'give rateLimit or limiter, not both');
  return Object.freeze({
    service,
    tokens: new TokenSet(options.tokens ?? []),
    limiter: options.limiter ?? new RateLimiter({ limit: options.rateLimit ?? null, ...(options.now ? { now: options.now } : {}) }),
    requireHttps: options.requireHttps === true,
    httpsBaseUrl: options.httpsBaseUrl ?? null,
    bodyLimitBytes,
    listCache: options.listCache !== false,
    log: options.log ?? (() => {}),
  });
}

// ---- request schemas: compiled once ----

// verbose: the failing value travels with each error, so a failure is said with the value, as the service says it.
const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, coerceTypes: false, useDefaults: false, verbose: true });
const compiled = new WeakMap<JsonSchema, ValidateFunction>();

function validator(schema: JsonSchema): ValidateFunction {
  let v = compiled.get(schema);
  if (v === undefined) {
    v = ajv.compile(schema as object);
    compiled.set(schema, v);
  }
  return v;
}

type Params = Record<string, unknown>;

interface Prepared {
  readonly params: Params;
  readonly unknown: Record<string, unknown> | undefined;
}

/** Steps 2-3 above: defaults for an empty body, coercion, validation, the unknown set. */
/** A body sent as a form (its parser gives a repeated name as a list). */
const FORM_TYPE = /^\s*application\/x-www-form-urlencoded\s*(?:;|$)/i;

export function prepareInput(schema: JsonSchema, raw: unknown, where: 'body' | 'query', flat = where === 'query', operation?: OperationName): Prepared {
  const input = raw === undefined || raw === '' ? bareObject() : raw;
  if (!isRecord(input)) {
    throw new LightwireError('BODY_INVALID', { reason: `the request ${where} must be a JSON object or a form` });
  }
  // A query string or a form has one value a name, except for a list (`ignore`, `palette`): there each value is
  // one item, as form-encoding clients send lists (`-d ignore=power -d ignore=brightness`). Any other name given
  // twice is parsed as a list no field takes.
  if (flat) {
    const takesList = (k: string): boolean => {
      const field = schema.properties !== undefined && Object.hasOwn(schema.properties, k) ? schema.properties[k] : undefined;
      return field !== undefined && types(field).includes('array');
    };
    const repeated = Object.keys(input).find((k) => Array.isArray(input[k]) && !takesList(k));
    if (repeated !== undefined) {
      const message = `is given more than once (${(input[repeated] as unknown[]).length} times); give it once`;
      throw new ValidationProblem('PARAMETER_INVALID', 422, `${clipped(repeated)} ${message}`, [{ field: clipped(repeated), message: [message] }]);
    }
  }
  const params = coerce(input, schema) as Params;
  const validate = validator(schema);
  if (!validate(params)) throw validationProblem(validate.errors ?? [], where, operation === undefined ? undefined : catalogueText(operation));
  return { params, unknown: unknownParams(input, schema) };
}

/** A schema failure of a declared parameter, said with the parser's text for it. */
function catalogueText(operation: OperationName): DescribeFailure {
  return (field, error) => {
    const at = paramAt(operation, field);
    // HTTP carries colours as strings only (the cloud's contract), so a colour's type failure keeps the schema's words.
    if (at === undefined || at.param.kind === 'color' || (at.item && at.param.kind === 'colors')) return undefined;
    return at.item ? itemRefusal(at.param, error.data) : refusal(at.param, error.data);
  };
}

// ---- HTTP names -> the service's user units: the catalogue maps them (service.check with the v1 vocabulary) ----

const flag = (p: Params, key: string): boolean | undefined => p[key] as boolean | undefined;

/** A Set State hash in the service's names, back in the HTTP API's (Set States echoes each executed operation). */
function operationEcho(op: SetStatesOperation, selector: string): Record<string, unknown> {
  const out: Record<string, unknown> = { selector };
  for (const p of OPERATIONS.setState.params) {
    const value = (op as unknown as Record<string, unknown>)[p.key];
    if (value !== undefined) out[p.v1] = value;
  }
  return out;
}

// ---- raw path segments ----

/** Segment `index` of the request's raw path: still percent-encoded, exactly as the client sent it. */
function rawSegment(request: FastifyRequest, index: number): string {
  return rawPath(request.raw.url).split('/')[index] ?? '';
}

/**
 * The selector of a path: the raw segment percent-decoded exactly once (a label holding `/` arrives as %2F), so
 * `label:100%25%20Warm` names "100% Warm" and `%2C` splits the list. The service takes plain text.
 */
function selectorSegment(request: FastifyRequest, index: number): string {
  const segment = rawSegment(request, index);
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new LightwireError('SELECTOR_INVALID', { selector: segment, part: segment, reason: 'has a malformed percent-escape' });
  }
}

/** `scene_id:<uuid>` from the raw segment, percent-decoded once. */
function sceneIdOf(segment: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    throw new LightwireError('PARAMETER_INVALID', { field: 'scene_id', reason: 'has a malformed percent-escape' });
  }
  const m = /^scene_id:(.+)$/.exec(decoded);
  if (m === null) throw new LightwireError('PARAMETER_INVALID', { field: 'scene_id', reason: 'must be given as the path segment scene_id:<uuid>' });
  return m[1]!;
}

// ---- the plugin ----

interface RouteConfig {
  readonly scope?: Scope;
  readonly public?: boolean;
}

const INPUT = Symbol('lightwire.input');
type WithInput = FastifyRequest & { [INPUT]?: unknown };

function routeConfig(request: FastifyRequest): RouteConfig {
  return (request.routeOptions.config ?? {}) as RouteConfig;
}

function pathRegex(path: string): RegExp {
  const body = path
    .split('/')
    .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${body}$`);
}

const routeMatchers = (endpoints: readonly Endpoint[]) => endpoints.map((e) => ({ method: e.method as string, re: pathRegex(e.path) }));

/** Why a path is not found: the methods it does answer, or the Validate Color hint (klarstil's PUT /color). */
function notFoundHint(method: string, path: string, matchers: ReturnType<typeof routeMatchers>, docs: string): string {
  const methods = [...new Set(matchers.filter((m) => m.re.test(path)).map((m) => m.method))];
  if (path === '/color') return 'Validate Color is GET /v1/color?string=<colour string>';
  if (methods.length > 0 && !methods.includes(method)) return `this path answers ${methods.join(', ')}`;
  return `see GET ${docs} for the endpoints`;
}

/** The cloud's v1 API: mount it at /v1. */
export const lightwireApi: FastifyPluginAsync<HttpApiOptions> = (app, options) => apiPlugin(app, options, 'v1');
/** Our own endpoints (renaming; Paint Pixels, Paint Theme, List Themes), with /v1's auth, limits and errors: mount it at /lightwire. */
export const namingApi: FastifyPluginAsync<HttpApiOptions> = (app, options) => apiPlugin(app, options, 'lightwire');

async function apiPlugin(app: FastifyInstance, options: HttpApiOptions, api: ApiSurface): Promise<void> {
  const o = resolveHttpApiOptions(options);
  const { endpoints, removed: removedEndpoints } = surfaceEndpoints(api);
  const matchers = routeMatchers(endpoints);
  const open = o.tokens.size === 0;

  // List Lights answers from a cache that any change of the lights clears (list-cache.ts).
  const cache = new ListCache(options.now ?? Date.now);
  const unfollow = followLightEvents(o.service, () => cache.clear());
  app.addHook('onClose', async () => unfollow());

  // ---- step 1: every request, every route of this plugin, the 404 handler included ----
  app.addHook('onRequest', async (request, reply) => {
    // A compressed body would otherwise be parsed as if it were not (RFC 9110 §8.4: 415 for a coding not supported).
    const encoding = request.headers['content-encoding'];
    if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity' && encoding.trim() !== '') {
      throw new LightwireError('BODY_ENCODING_UNSUPPORTED', { encoding });
    }
    const auth = open ? null : o.tokens.authenticate(request.headers.authorization);
    const caller = auth?.ok ? auth.identity : `ip:${request.ip}`;
    const rate = o.limiter.take(caller);
    reply.headers(rate.headers);
    const origin = request.headers.origin;
    if (!open && origin !== undefined) {
      reply.header('access-control-allow-origin', '*');
      reply.header('access-control-expose-headers', 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset');
    }
    if (o.requireHttps && request.protocol !== 'https') {
      const base = o.httpsBaseUrl ?? `https://${hostOfHeader(request.headers.host ?? '127.0.0.1')}/v1`;
      reply.header('upgrade', 'TLS/1.2, HTTP/1.1');
      throw new LightwireError('HTTPS_REQUIRED', { url: base });
    }
    if (rate.error) {
      reply.header('retry-after', String(rate.retryAfterS));
      throw rate.error;
    }
    if (open) {
      // No token: only this machine may call, and no web page (auth.ts).
      if (!isLoopbackHost(request.socket.remoteAddress ?? '')) {
        throw new LightwireError('UNAUTHORIZED', { reason: 'no token is configured, so only this machine may call; start the server with --token' });
      }
      const host = request.headers.host;
      if (host !== undefined && !isLoopbackHost(hostOfHeader(host))) {
        throw new LightwireError('FORBIDDEN', { reason: `Host ${JSON.stringify(host)} is not this machine; without a token only loopback names are answered` });
      }
      if (origin !== undefined) {
        throw new LightwireError('FORBIDDEN', { reason: 'requests from web pages need a token (start the server with --token)' });
      }
      return;
    }
    if (request.method === 'OPTIONS' || routeConfig(request).public) return;
    if (!auth!.ok) {
      reply.header('www-authenticate', 'Bearer realm="lightwire"');
      throw auth!.error;
    }
    const scope = routeConfig(request).scope;
    if (scope !== undefined && !auth!.scopes.includes(scope)) {
      throw new LightwireError('FORBIDDEN', { reason: `this endpoint needs the ${scope} scope; the token has ${auth!.scopes.join(', ')}` });
    }
  });

  // ---- step 2: bodies ----
  app.removeAllContentTypeParsers();
  const json = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: o.bodyLimitBytes }, (request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    json(request, text, (err: Error | null, value?: unknown) => {
      // Fastify's parser says only "invalid JSON" either way: JSON that parses as plain data was refused for its keys.
      if (err) return done(new LightwireError('BODY_INVALID', { reason: isPlainJson(text) ? 'it sets __proto__ or constructor.prototype' : 'it is not valid JSON' }), undefined);
      if (nestingDepth(value, MAX_BODY_DEPTH) > MAX_BODY_DEPTH) {
        return done(new LightwireError('BODY_INVALID', { reason: `it nests deeper than ${MAX_BODY_DEPTH} levels` }), undefined);
      }
      done(null, value);
    });
  });
  await app.register(formbody, { bodyLimit: o.bodyLimitBytes });

  // ---- errors: one shape for all (the vendor's error body) ----
  app.setErrorHandler((err, request, reply) => {
    // An aborted upload is the client's choice, not our fault: no answer can reach it, nothing to log.
    if (isClientGone(err, request.raw.socket?.destroyed === true)) {
      request.raw.socket?.destroy();
      return;
    }
    const problem = toProblem(err, (request as WithInput)[INPUT] ?? request.body, o.bodyLimitBytes);
    if (problem.fault) {
      o.log(`${request.method} ${request.url}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    }
    void reply.code(problem.status).type('application/json; charset=utf-8').send(problem.body);
  });

  app.setNotFoundHandler((request) => {
    const full = rawPath(request.raw.url);
    const path = full.startsWith(app.prefix) ? full.slice(app.prefix.length) : full;
    throw new LightwireError('ROUTE_NOT_FOUND', { method: request.method, path: full, hint: notFoundHint(request.method, path, matchers, api === 'v1' ? '/v1/openapi.json' : `${app.prefix}/openapi.json`) });
  });

  // ---- CORS preflight (only with tokens: without, web pages are refused above) ----
  if (!open) {
    app.options('/*', { config: { public: true } satisfies RouteConfig }, async (_request, reply) => {
      void reply
        .code(204)
        .header('access-control-allow-methods', 'GET, PUT, POST')
        .header('access-control-allow-headers', 'Authorization, Content-Type')
        .header('access-control-max-age', '600')
        .send();
    });
  }

  // ---- step 3-5: the endpoints ----
  const segmentIndex = (path: string, param: string): number => `${app.prefix}${path}`.split('/').indexOf(`:${param}`);

  for (const endpoint of endpoints) {
    const selectorAt = segmentIndex(endpoint.path, 'selector');
    app.route({
      method: endpoint.method,
      url: endpoint.path,
      bodyLimit: o.bodyLimitBytes,
      config: { scope: endpoint.scope } satisfies RouteConfig,
      schema: { response: { [endpoint.status]: withoutRequired(endpoint.response) } },
      handler: async (request, reply) => {
        (request as WithInput)[INPUT] = endpoint.query ? request.query : request.body;
        const prepared = endpoint.body
          ? prepareInput(endpoint.body, request.body, 'body', FORM_TYPE.test(request.headers['content-type'] ?? ''), endpoint.operation)
          : endpoint.query
            ? prepareInput(endpoint.query, request.query, 'query')
            : { params: {}, unknown: undefined };
        const p = prepared.params;
        (request as WithInput)[INPUT] = p;
        if (endpoint.id === 'listLights') {
          const selector = selectorSegment(request, selectorAt);
          const cacheable = o.listCache && ListCache.cacheable(selector);
          const hit = cacheable ? cache.get(selector) : undefined;
          void reply.code(200).type('application/json; charset=utf-8');
          if (hit !== undefined) return reply.send(hit);
          const json = reply.serialize(o.service.list(selector)) as string;
          if (cacheable) cache.set(selector, json);
          return reply.send(json);
        }
        if (endpoint.status === 200) return reply.code(200).send(read(o.service, endpoint.id, p, () => selectorSegment(request, selectorAt)));

        // Renaming has no fast mode: there `fast` is an unknown parameter like any other.
        const fast = endpoint.body?.properties?.fast !== undefined && (flag(p, 'fast') ?? flag(p, 'async')) === true;
        const write: WriteOptions = { fast };
        let body: Record<string, unknown>;
        try {
          body = await runWrite(endpoint, request, p, write);
        } finally {
          // Whatever ran (or half ran) may have changed the lights: the next list reads them afresh.
          cache.clear();
        }
        if (fast) return reply.code(202).send();
        const warnings: Record<string, unknown>[] = [];
        if (prepared.unknown !== undefined) warnings.push({ warning: 'Unknown params', unknown_params: prepared.unknown });
        // A write takes its parameters from the body only: any in the query string are echoed, not silently dropped.
        const ignored = endpoint.body ? queryParams(request.query) : undefined;
        if (ignored !== undefined) warnings.push({ warning: QUERY_IGNORED, unknown_params: ignored });
        if (warnings.length > 0) body.warnings = warnings;
        return reply.code(207).send(body);
      },
    });
  }

  /** Runs one write endpoint through the service: its parameters checked by the catalogue, its results in a 207. */
  async function runWrite(endpoint: Endpoint, request: FastifyRequest, p: Params, write: WriteOptions): Promise<Record<string, unknown>> {
    const operation = endpoint.operation;
    if (operation === undefined) throw new Error(`no operation for ${endpoint.id}`);
    const service = o.service;
    if (operation === 'setStates') return { results: await setStates(service, p, write) };
    if (operation === 'renameGroup' || operation === 'renameLocation') return { results: await service.rename(operation, service.check(operation, p, V1)) };
    if (operation === 'activateScene') {
      const sceneId = sceneIdOf(rawSegment(request, segmentIndex(endpoint.path, 'scene')));
      return { results: await service.activateScene(sceneId, service.check('activateScene', p, V1), write) };
    }
    const selector = selectorSegment(request, segmentIndex(endpoint.path, 'selector'));
    return { results: await service.perform(operation, selector, service.check(operation, p, V1), write) };
  }

  for (const removed of removedEndpoints) {
    app.route({
      method: removed.method,
      url: removed.path,
      config: { scope: 'control' } satisfies RouteConfig,
      handler: async () => {
        throw new LightwireError('ENDPOINT_REMOVED', { method: removed.method, path: `${app.prefix}${removed.path}`, replacement: removed.replacement });
      },
    });
  }

  const document = openApiDocument(app.prefix, api);
  app.get('/openapi.json', { config: { public: true } satisfies RouteConfig }, async (_request, reply) => reply.send(document));
}

/** Parameters as the HTTP API names them. */
const V1 = { vocabulary: 'v1' } as const;

/** The read endpoints (200). `selector` gives the raw selector segment. */
function read(service: LightApi, id: OperationId, p: Params, selector: () => string): unknown {
  switch (id) {
    case 'listLights':
      return service.list(selector());
    case 'listScenes':
      return service.listScenes();
    case 'validateColor':
      return service.validateColor(p.string as string);
    case 'listDeviceSelectors':
      return allLights(service).map((l) => ({ selector: `id:${l.id}`, label: l.label }));
    case 'listSceneSelectors':
      return service.listScenes().map((s) => ({ selector: `scene_id:${s.uuid}`, label: s.name }));
    case 'listThemes':
      return themeList();
    default:
      throw new Error(`no reader for ${id}`);
  }
}

/** Every light, or none (the /selectors helper lists nothing rather than failing with 404). */
function allLights(service: LightApi): ReturnType<LightApi['list']> {
  try {
    return service.list('all');
  } catch (err) {
    if (err instanceof LightwireError && err.code === 'LIGHTS_NOT_FOUND') return [];
    throw err;
  }
}

/** Set States: selectors come from JSON, not a URL, so they must not be percent-decoded. */
async function setStates(service: LightApi, p: Params, options: WriteOptions): Promise<Record<string, unknown>[]> {
  const request = service.check('setStates', p, V1);
  const results: SetStatesResult[] = await service.setStates(request.states, request.defaults, options);
  return results.map((r, i) => {
    const operation = operationEcho(r.operation, request.states[i]!.selector);
    return 'results' in r ? { operation, results: r.results } : { operation, error: r.error };
  });
}

/** Whether JSON.parse (which keeps `__proto__` as an ordinary key, unlike Fastify's secure parser) takes the text. */
function isPlainJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The warning for parameters a write was given in its query string (the Unknown params shape, its own text). */
const QUERY_IGNORED = 'Params in the query string are ignored: send them in the body';

/** The query string's parameters (as plain data), or undefined when it has none. */
function queryParams(query: unknown): Record<string, unknown> | undefined {
  if (!isRecord(query)) return undefined;
  const keys = Object.keys(query);
  if (keys.length === 0) return undefined;
  const out = bareObject();
  for (const key of keys) out[key] = query[key];
  return out;
}

// Errors at the HTTP border (https://api.developer.lifx.com/docs/errors): every failure becomes one status and the body
// `{ "error": "...", "errors": [{ "field": "...", "message": ["..."] }], "code": "..." }`. `error` is what
// clients print (klarstil's lifx-http-api shows body.error for 422); `code` is the Lightwire error code, for programs.
// Anything that is not a known client error is a 500 whose body says only "Internal server error":
// messages and stacks of unexpected faults go to the log, never to the client.

import type { ErrorObject } from 'ajv';
import { LightwireError, isLightwireError, type ErrorCode } from '../index.js';
import { isRecord } from './json-schema.js';

export interface FieldError {
  readonly field: string;
  readonly message: string[];
}

export interface ErrorBody {
  readonly error: string;
  readonly errors: FieldError[];
  readonly code: string;
}

export interface Problem {
  readonly status: number;
  readonly body: ErrorBody;
  /** True for faults of ours (5xx): log them. */
  readonly fault: boolean;
}

/**
 * The path of a request target as the client sent it (still percent-encoded, no query): also for the absolute
 * form `http://host/v1/...`, which servers must accept (RFC 9112 §3.2.2).
 */
export function rawPath(url: string | undefined): string {
  let target = url ?? '';
  const authority = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(target);
  if (authority) target = target.slice(authority[0].length) || '/';
  const q = target.search(/[?#]/);
  return q < 0 ? target : target.slice(0, q);
}

/** A client that went away mid-request (an aborted upload, a reset): nothing to answer, nothing to log. */
export function isClientGone(err: unknown, socketDestroyed: boolean): boolean {
  if (socketDestroyed) return true;
  const e = err as { code?: unknown; message?: unknown } | null;
  return e !== null && typeof e === 'object' && (e.code === 'ECONNRESET' || e.code === 'ECONNABORTED' || e.code === 'ERR_STREAM_PREMATURE_CLOSE' || e.message === 'aborted');
}

/** At most this many field errors are listed (a hostile body can fail thousands of items). */
export const MAX_FIELD_ERRORS = 25;

/** A failed schema check: several fields at once, as Ajv reports them. */
export class ValidationProblem extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly errors: FieldError[];

  constructor(code: ErrorCode, status: number, message: string, errors: FieldError[]) {
    super(message);
    this.name = 'ValidationProblem';
    this.code = code;
    this.status = status;
    this.errors = errors;
  }
}

/** `/states/0/brightness` -> `states[0].brightness`, the way the service names fields. */
export function fieldName(instancePath: string, child?: string): string {
  const parts = instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) parts.push(child);
  let out = '';
  for (const part of parts) out += /^\d+$/.test(part) ? `[${part}]` : out === '' ? part : `.${part}`;
  return out;
}

function ajvMessage(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return 'is missing';
    case 'type':
      return `must be ${String(p.type).replace(',', ' or ')}`;
    case 'enum':
      return `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'minimum':
    case 'maximum':
      return `must be ${String(p.comparison)} ${String(p.limit)}`;
    default:
      return e.message ?? 'is invalid';
  }
}

/**
 * How a field's failure is said when the operation catalogue declares the field: the service's parser's text, so a
 * bad value gets the same code and text over HTTP as from Node-RED, the dashboard or the library.
 */
export type DescribeFailure = (field: string, error: ErrorObject) => string | undefined;

/** Ajv's errors for one request as a 422 (or 400 when the body itself is not an object). */
export function validationProblem(errors: readonly ErrorObject[], where: 'body' | 'query', describe?: DescribeFailure): ValidationProblem {
  const byField = new Map<string, string[]>();
  let code: ErrorCode = 'PARAMETER_INVALID';
  for (const e of errors) {
    const missing = e.keyword === 'required' ? String((e.params as { missingProperty: string }).missingProperty) : undefined;
    const field = fieldName(e.instancePath, missing);
    if (field === '') {
      return new ValidationProblem('BODY_INVALID', 400, `the request ${where} must be a JSON object or a form`, []);
    }
    if (e.keyword === 'maxItems' && field === 'states') code = 'STATES_TOO_MANY';
    else if (e.keyword === 'required' && code === 'PARAMETER_INVALID' && byField.size === 0) code = 'PARAMETER_MISSING';
    const list = byField.get(field) ?? [];
    const message = (e.keyword === 'required' ? undefined : describe?.(field, e)) ?? ajvMessage(e);
    if (!list.includes(message)) list.push(message);
    byField.set(field, list);
    if (byField.size >= MAX_FIELD_ERRORS) break;
  }
  const fields = [...byField].map(([field, message]) => ({ field, message }));
  const first = fields[0];
  const text = first ? `${first.field} ${first.message.join(', ')}` : 'the parameters are invalid';
  return new ValidationProblem(code, 422, text, fields);
}

/** The path of the first string equal to `needle` inside `value` (which colour string failed?). */
export function findString(value: unknown, needle: string, path = '', depth = 0): string | undefined {
  if (depth > 8) return undefined;
  if (value === needle) return path;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findString(value[i], needle, `${path}[${i}]`, depth + 1);
      if (found !== undefined) return found;
    }
  } else if (isRecord(value)) {
    for (const key of Object.keys(value)) {
      const found = findString(value[key], needle, path ? `${path}.${key}` : key, depth + 1);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

function fieldErrors(err: LightwireError, input: unknown): FieldError[] {
  const p = err.params as Record<string, unknown>;
  switch (err.code) {
    case 'PARAMETER_INVALID':
      return [{ field: String(p.field), message: [String(p.reason)] }];
    case 'PARAMETER_MISSING':
      return [{ field: String(p.field), message: ['is missing'] }];
    case 'COLOR_INVALID':
      return [{ field: findString(input, String(p.color)) || 'color', message: [`is invalid: ${String(p.reason)}`] }];
    case 'SELECTOR_INVALID':
      return [{ field: 'selector', message: [`is invalid at ${JSON.stringify(p.part)}: ${String(p.reason)}`] }];
    case 'SELECTOR_TOO_MANY':
      return [{ field: 'selector', message: [err.message] }];
    case 'STATES_TOO_MANY':
      return [{ field: 'states', message: [err.message] }];
    default:
      return [];
  }
}

/** Fastify's own errors (body parsing, limits) as Lightwire errors. */
function fromFastify(err: { code?: unknown; statusCode?: unknown; message?: unknown }): LightwireError | null {
  const status = typeof err.statusCode === 'number' ? err.statusCode : 0;
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return null; // handled by the caller, which knows the limit
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new LightwireError('BODY_INVALID', { reason: 'send it as application/json or application/x-www-form-urlencoded' });
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new LightwireError('BODY_INVALID', { reason: 'it is not valid JSON' });
    default:
      if (status >= 400 && status < 500 && typeof err.code === 'string' && err.code.startsWith('FST_')) {
        return new LightwireError('BODY_INVALID', { reason: String(err.message) });
      }
      return null;
  }
}

/** Any thrown value as a status and an error body. `input` is the parsed request, to name failing fields. */
export function toProblem(err: unknown, input: unknown, bodyLimitBytes: number): Problem {
  if (err instanceof ValidationProblem) {
    return { status: err.status, body: { error: err.message, errors: err.errors, code: err.code }, fault: false };
  }
  let known: LightwireError | null = isLightwireError(err) ? err : null;
  if (known === null && typeof err === 'object' && err !== null) {
    const e = err as { code?: unknown; statusCode?: unknown; message?: unknown };
    known = e.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? new LightwireError('BODY_TOO_LARGE', { limitBytes: bodyLimitBytes }) : fromFastify(e);
  }
  if (known === null || known.httpStatus >= 500) {
    // A 5xx LightwireError (client stopped, cancelled) names its cause; anything else is not described.
    const error = known ?? new LightwireError('INTERNAL_ERROR', {});
    return { status: error.httpStatus, body: { error: error.message, errors: [], code: error.code }, fault: true };
  }
  return { status: known.httpStatus, body: { error: known.message, errors: fieldErrors(known, input), code: known.code }, fault: false };
}

// The one table of Lightwire error codes. Every layer throws or returns a LightwireError built from it;
// each face translates at its border (HTTP status from `httpStatus`, Node-RED done(err), HomeKit status).
// This module imports nothing, so core/protocol may use it without depending on the rest of core.

interface ErrorSpec<P> {
  readonly httpStatus: number;
  readonly message: (params: P) => string;
}

function spec<P>(httpStatus: number, message: (params: P) => string): ErrorSpec<P> {
  return { httpStatus, message };
}

/** How much of a caller's value an error message repeats (a hostile value must not make it megabytes long). */
const QUOTE_MAX_CHARS = 200;
/**
 * The ellipsis that ends a cut value, as an escape: one character outside ASCII would make V8 hold this module's
 * whole source text (kept in the heap of every process that loads the library) at two bytes a character.
 */
const ELLIPSIS = '\u2026';

/** Text a caller gave, as an error message repeats it: cut to QUOTE_MAX_CHARS, saying how long it was. */
export function clipped(text: string, maxChars = QUOTE_MAX_CHARS): string {
  return text.length > maxChars ? `${text.slice(0, maxChars)}${ELLIPSIS} (${text.length} characters)` : text;
}

/**
 * A value as error text: its JSON (a string in quotes), cut like clipped(). Never throws: a circular value, a
 * BigInt or a getter or toJSON that throws are described instead.
 */
export function quoted(value: unknown, maxChars = QUOTE_MAX_CHARS): string {
  if (typeof value === 'string') return value.length > maxChars ? `${JSON.stringify(value.slice(0, maxChars))}${ELLIPSIS} (${value.length} characters)` : JSON.stringify(value);
  if (typeof value === 'bigint') return clipped(`${value}n`, maxChars);
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = Array.isArray(value) ? 'an array that cannot be written as JSON' : `a ${typeof value} that cannot be written as JSON`;
  }
  return clipped(text, maxChars);
}

export const ERRORS = {
  // core/protocol: decoding never throws, it returns one of these.
  DATAGRAM_TOO_SHORT: spec<{ lengthBytes: number }>(
    400,
    (p) => `datagram is ${p.lengthBytes} ${p.lengthBytes === 1 ? 'byte' : 'bytes'}; a LIFX header needs 36`,
  ),
  SIZE_MISMATCH: spec<{ sizeField: number; lengthBytes: number }>(
    400,
    (p) => `header size field says ${p.sizeField} bytes but the datagram is ${p.lengthBytes} bytes`,
  ),
  PROTOCOL_UNSUPPORTED: spec<{ protocol: number }>(
    400,
    (p) => `protocol number ${p.protocol} is not 1024 (LIFX LAN v2)`,
  ),
  // core/protocol: encoding rejects values that do not fit their field.
  VALUE_OUT_OF_RANGE: spec<{ field: string; value: string; expected: string }>(
    400,
    (p) => `field ${p.field}: ${p.value} is not ${p.expected}`,
  ),
  MESSAGE_UNKNOWN: spec<{ message: string }>(400, (p) => `unknown message ${p.message}`),
  HEX_INVALID: spec<{ reason: string }>(400, (p) => `not a hex datagram: ${p.reason}`),
  // core/protocol/products
  PRODUCT_DATA_INVALID: spec<{ reason: string }>(500, (p) => `product registry data is invalid: ${p.reason}`),
  // core/simulator
  FLEET_INVALID: spec<{ path: string; reason: string }>(
    400,
    (p) => `fleet ${p.path ? `${p.path}: ` : ''}${p.reason}`,
  ),
  ADDRESS_IN_USE: spec<{ address: string; port: number }>(
    409,
    (p) => `UDP ${p.address}:${p.port} is already in use by another program`,
  ),
  ADDRESS_UNAVAILABLE: spec<{ address: string; port: number; reason: string }>(
    500,
    (p) => `cannot bind UDP ${p.address}:${p.port}: ${p.reason}`,
  ),
  LIGHT_NOT_FOUND: spec<{ serial: string }>(404, (p) => `no virtual light with serial ${p.serial}`),
  CONTROL_REQUEST_INVALID: spec<{ reason: string }>(400, (p) => `control request invalid: ${p.reason}`),
  CONTROL_HOST_NOT_LOOPBACK: spec<{ host: string }>(
    400,
    (p) => `the control endpoint only listens on loopback (127.0.0.0/8, ::1, localhost), not ${p.host}`,
  ),
  // core/transport and core/discovery
  OPTIONS_INVALID: spec<{ option: string; reason: string }>(400, (p) => `option ${p.option} ${p.reason}`),
  REQUEST_TIMED_OUT: spec<{ serial: string; message: string; timeoutMs: number }>(
    504,
    (p) => `light ${p.serial} did not answer ${p.message} within ${p.timeoutMs} ms`,
  ),
  REQUEST_CANCELLED: spec<{ serial: string; message: string }>(
    503,
    (p) => `${p.message} to light ${p.serial} was cancelled because the client stopped`,
  ),
  CLIENT_STOPPED: spec<Record<string, never>>(503, () => 'the client is stopped'),
  NO_BROADCAST_ADDRESS: spec<Record<string, never>>(
    503,
    () => 'no network interface has an IPv4 address to broadcast on yet; discovery looks again at every round',
  ),
  REGISTRY_FULL: spec<{ maxLights: number }>(
    503,
    (p) => `discovery ignores new lights beyond ${p.maxLights} (option maxLights); a flood of invented serials on the LAN would look like this`,
  ),
  UNHANDLED_BY_DEVICE: spec<{ serial: string; message: string }>(
    422,
    (p) => `light ${p.serial} does not support ${p.message} (it answered StateUnhandled)`,
  ),
  // core/control: selectors, colour strings, requests (the HTTP API maps httpStatus directly)
  SELECTOR_INVALID: spec<{ selector: string; part: string; reason: string }>(
    422,
    (p) => `selector ${quoted(p.selector)} is invalid at ${quoted(p.part)}: ${p.reason}`,
  ),
  SELECTOR_TOO_MANY: spec<{ count: number; max: number }>(
    422,
    (p) => `${p.count} selectors given; at most ${p.max} may be combined`,
  ),
  LIGHTS_NOT_FOUND: spec<{ selector: string }>(404, (p) => `Could not find light with selector '${clipped(p.selector)}'.`),
  COLOR_INVALID: spec<{ color: string; reason: string }>(
    422,
    (p) => `Unable to parse color: ${quoted(p.color)} (${p.reason})`,
  ),
  PARAMETER_INVALID: spec<{ field: string; reason: string }>(422, (p) => `${p.field} ${p.reason}`),
  PARAMETER_MISSING: spec<{ field: string }>(422, (p) => `${p.field} is missing`),
  STATES_TOO_MANY: spec<{ count: number; max: number }>(422, (p) => `${p.count} states given; at most ${p.max} are allowed`),
  CAPABILITY_MISSING: spec<{ selector: string; operation: string; capability: string }>(
    422,
    (p) => `no light matched by '${p.selector}' can ${p.operation} (it needs ${p.capability})`,
  ),
  PART_UNKNOWN: spec<{ selector: string; label: string; part: string; parts: string }>(
    422,
    (p) => `light ${quoted(p.label)} (selector ${quoted(p.selector)}) has no part ${quoted(p.part)}; its parts: ${p.parts}`,
  ),
  PART_UNSUPPORTED: spec<{ selector: string; operation: string; takes: string }>(
    422,
    (p) => `${p.operation} acts on whole lights, and ${quoted(p.selector)} names a part (parts take: ${p.takes})`,
  ),
  SCENE_NOT_FOUND: spec<{ sceneId: string }>(404, (p) => `Could not find scene with id '${p.sceneId}'.`),
  SCENE_STORE_CORRUPT: spec<{ path: string; movedTo: string | null; reason: string }>(
    500,
    (p) => `scene file ${p.path} is not valid (${p.reason}); ${p.movedTo === null ? 'it was left as it is' : `it was moved aside to ${p.movedTo}`}`,
  ),
  SCENE_STORE_FAILED: spec<{ path: string; reason: string }>(500, (p) => `scene file ${p.path}: ${p.reason}`),
  // core/http: the local HTTP API v1 (auth, rate limits, errors)
  BODY_INVALID: spec<{ reason: string }>(400, (p) => `the request body is invalid: ${p.reason}`),
  BODY_TOO_LARGE: spec<{ limitBytes: number }>(413, (p) => `the request body is larger than ${p.limitBytes} bytes`),
  BODY_ENCODING_UNSUPPORTED: spec<{ encoding: string }>(
    415,
    (p) => `the request body is sent with Content-Encoding ${JSON.stringify(p.encoding)}, which is not supported: send it unencoded`,
  ),
  URL_INVALID: spec<{ reason: string }>(400, (p) => `the URL is invalid: ${p.reason}`),
  URL_TOO_LONG: spec<{ maxChars: number }>(414, (p) => `a path segment is longer than ${p.maxChars} characters`),
  REQUEST_MALFORMED: spec<{ reason: string }>(400, (p) => `the request cannot be parsed as HTTP/1.1: ${p.reason}`),
  EXPECTATION_FAILED: spec<{ expect: string }>(417, (p) => `the server cannot meet Expect: ${p.expect} (only 100-continue is supported)`),
  HEADERS_TOO_LARGE: spec<{ limitBytes: number }>(431, (p) => `the request headers are larger than ${p.limitBytes} bytes`),
  REQUEST_TIMEOUT: spec<{ timeoutMs: number }>(408, (p) => `the request did not arrive completely within ${p.timeoutMs} ms`),
  UNAUTHORIZED: spec<{ reason: string }>(401, (p) => `Bad access token: ${p.reason}`),
  // The dashboard's own routes (core/http/dashboard.ts), where no token was involved.
  SESSION_REQUIRED: spec<{ reason: string }>(401, (p) => `No dashboard session: ${p.reason}`),
  LOOPBACK_ONLY: spec<{ reason: string }>(401, (p) => `Not this machine: ${p.reason}`),
  FORBIDDEN: spec<{ reason: string }>(403, (p) => `Permission denied: ${p.reason}`),
  ROUTE_NOT_FOUND: spec<{ method: string; path: string; hint: string }>(
    404,
    (p) => `No endpoint ${p.method} ${p.path}${p.hint ? `; ${p.hint}` : ''}`,
  ),
  ENDPOINT_REMOVED: spec<{ method: string; path: string; replacement: string }>(
    410,
    (p) => `${p.method} ${p.path} was removed from the API; use ${p.replacement} instead`,
  ),
  HTTPS_REQUIRED: spec<{ url: string }>(426, (p) => `HTTPS is required; repeat the request at ${p.url}`),
  RATE_LIMITED: spec<{ limit: number; windowS: number; resetS: number }>(
    429,
    (p) => `Rate limit exceeded: ${p.limit} requests per ${p.windowS} s; the next window starts at ${p.resetS} (Unix seconds)`,
  ),
  INTERNAL_ERROR: spec<Record<string, never>>(500, () => 'Internal server error'),
  // core/control: an event listener of the host's own threw or rejected (reported; the service carries on).
  LISTENER_FAILED: spec<{ event: string; reason: string }>(500, (p) => `a listener of the '${p.event}' event failed: ${p.reason}`),
  SERVE_UNSAFE_BIND: spec<{ host: string }>(
    400,
    (p) =>
      `refusing to listen on ${p.host} without a token: anyone who can reach this address could control the lights. ` +
      'Give --token T (clients then send "Authorization: Bearer T"), or listen on 127.0.0.1',
  ),
  SERVE_WEAK_TOKEN: spec<{ host: string; minChars: number }>(
    400,
    (p) =>
      `refusing to listen on ${p.host} with a token shorter than ${p.minChars} characters: anyone who can reach this address ` +
      'could guess it. Give a longer token (e.g. from "openssl rand -hex 16"), or listen on 127.0.0.1',
  ),
  // core/cli: a flag or argument the command cannot use; `flag` is the flag as the user typed it.
  CLI_USAGE: spec<{ reason: string; flag?: string }>(400, (p) => p.reason),
  // core/control: renaming (https://lan.developer.lifx.com/docs/changing-a-device).
  LABEL_TOO_LONG: spec<{ field: string; bytes: number; maxBytes: number; label: string }>(
    422,
    (p) => `${p.field} is ${p.bytes} bytes of UTF-8 (${p.label}); a label holds at most ${p.maxBytes}, and is never cut`,
  ),
  SELECTOR_NOT_ONE_LIGHT: spec<{ selector: string; count: number }>(
    422,
    (p) => `selector '${clipped(p.selector)}' names ${p.count} lights; a label is for one light: name it by id:, or by a label only it has`,
  ),
  // core/discovery/products-file: a products.json given at run time (service `products`, --products) that cannot be
  // used; the bundled registry stays in use.
  PRODUCTS_FILE_INVALID: spec<{ file: string; reason: string }>(
    400,
    (p) => `products file ${p.file} cannot be used (the bundled product registry stays in use): ${p.reason}`,
  ),
  // core/control: pixels and themes (issue 29).
  PIXELS_OUT_OF_CANVAS: spec<{ label: string; area: string; canvas: string }>(
    422,
    (p) => `the pixels (${p.area}) do not fit '${p.label}', whose canvas is ${p.canvas} pixels`,
  ),
  // `close`: the nearest names, comma-separated.
  THEME_UNKNOWN: spec<{ theme: string; close: string }>(
    422,
    (p) => `there is no theme named ${quoted(p.theme)}${p.close ? `; close names: ${p.close}` : ''} (lightwire themes lists them)`,
  ),
} as const;

export type ErrorCode = keyof typeof ERRORS;
export type ErrorParams<C extends ErrorCode> = Parameters<(typeof ERRORS)[C]['message']>[0];

export class LightwireError<C extends ErrorCode = ErrorCode> extends Error {
  readonly code: C;
  readonly params: ErrorParams<C>;
  readonly httpStatus: number;

  constructor(code: C, params: ErrorParams<C>) {
    const entry = ERRORS[code] as ErrorSpec<ErrorParams<C>>;
    super(entry.message(params));
    this.name = 'LightwireError';
    this.code = code;
    this.params = params;
    this.httpStatus = entry.httpStatus;
  }

  toJSON(): { code: C; message: string; params: ErrorParams<C> } {
    return { code: this.code, message: this.message, params: this.params };
  }
}

export function isLightwireError<C extends ErrorCode>(err: unknown, code?: C): err is LightwireError<C> {
  return err instanceof LightwireError && (code === undefined || err.code === code);
}

/** What a listener threw, as a coded error that keeps it as its cause. */
export function listenerFailed(event: string, thrown: unknown): LightwireError<'LISTENER_FAILED'> {
  const reason = thrown instanceof Error ? thrown.message : quoted(thrown);
  const err = new LightwireError('LISTENER_FAILED', { event, reason: clipped(reason) });
  (err as Error & { cause?: unknown }).cause = thrown;
  return err;
}

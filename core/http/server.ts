// A Fastify server around the v1 plugin: safe defaults (loopback, size limits), optional TLS, and the
// choice for 426 (the cloud answers 426 to plain HTTP, https://api.developer.lifx.com/docs/authentication):
// a TLS port cannot answer plain HTTP at all (the bytes fail the handshake before any request exists), so with TLS
// on, `httpPort` opens a second, plain listener whose every /v1 request is answered 426 Upgrade Required with the
// https URL. The plugin decides by `request.protocol`, so the same rule holds behind a TLS-terminating proxy
// (trustProxy) too.

import http from 'node:http';
import type { Duplex } from 'node:stream';
import Fastify, { LogController, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { LightwireError, PORT_MAX, quoted } from '../index.js';
import { isLoopbackHost, listenHostProblem, parseTokenSpec, type TokenSpec } from './auth.js';
import { rawPath, toProblem } from './errors.js';
import { DEFAULT_BODY_LIMIT_BYTES, lightwireApi, namingApi, type HttpApiOptions } from './plugin.js';
import { NAMING_PREFIX } from './schemas.js';
import { RateLimiter } from './rate-limit.js';
import { dashboardOf, mountDashboard, type DashboardOptions } from './dashboard.js';

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 3000;
/** The longest path segment (a selector): 25 selectors of percent-encoded labels fit in 8 KiB. */
export const MAX_PARAM_CHARS = 8192;
export const API_PREFIX = '/v1';
/**
 * A whole request (headers and body) must arrive within this, and its headers within HEADERS_TIMEOUT_MS: a slow
 * client cannot hold a connection for long. Writes then answer within the service's deadline.
 */
export const REQUEST_TIMEOUT_MS = 10_000;
export const HEADERS_TIMEOUT_MS = 10_000;
/** How often Node checks those two deadlines (its default, 30 s, lets a slow client stay up to ~40 s longer). */
const TIMEOUT_CHECK_INTERVAL_MS = 1000;
/**
 * How long close() lets requests in flight finish before it cuts the connections still open: a client that sent half
 * a request, or reads slowly, must not keep a stopping server (a Node-RED redeploy, a service manager's SIGTERM) up.
 */
export const CLOSE_GRACE_MS = 2000;
/** Node's limit for all request headers together (`--max-http-header-size`). */
export const MAX_HEADER_BYTES = http.maxHeaderSize;

export interface TlsFiles {
  /** PEM contents of the certificate (chain) and its private key. */
  readonly cert: string | Buffer;
  readonly key: string | Buffer;
}

export interface ServerOptions extends Omit<HttpApiOptions, 'limiter' | 'requireHttps' | 'httpsBaseUrl'> {
  readonly host?: string;
  readonly port?: number;
  readonly tls?: TlsFiles;
  /** With tls: also listen for plain HTTP on this port and answer 426 there. */
  readonly httpPort?: number;
  /**
   * Fastify's own (pino) logger at this level: one line per request ("GET /v1/lights/all 200 1.2ms") at info,
   * at error for 5xx; "incoming request" lines at debug. Default: no logging.
   */
  readonly logLevel?: LogLevel;
  /** Where the log lines (pino JSON, one per line) go; default stdout. */
  readonly logStream?: { write(line: string): void };
  /** A whole request (headers within the same time) must arrive within this; default REQUEST_TIMEOUT_MS. */
  readonly requestTimeoutMs?: number;
  /** How long close() waits for requests in flight before it closes every connection; default CLOSE_GRACE_MS. */
  readonly closeGraceMs?: number;
  /** The dashboard at / (dashboard.ts): on by default; false leaves only the API. `doctor` feeds /api/doctor. */
  readonly dashboard?: boolean | Pick<DashboardOptions, 'doctor' | 'liveRefresh'>;
}

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/** One log line per request, when it completes; the incoming request only at debug. */
class RequestLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (!this.isLogDisabled(request)) request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    const ms = reply.elapsedTime;
    const line = { method: request.method, url: request.url, statusCode: reply.statusCode, responseTime: ms };
    const msg = `${request.method} ${request.url} ${reply.statusCode} ${ms.toFixed(1)}ms`;
    if (error || reply.statusCode >= 500) reply.log.error({ ...line, ...(error ? { err: error } : {}) }, msg);
    else reply.log.info(line, msg);
  }
}

export interface RunningServer {
  /** The API's base URL, e.g. http://127.0.0.1:3000/v1. */
  readonly url: string;
  readonly port: number;
  /** The 426 listener's base URL, when there is one. */
  readonly plainUrl: string | null;
  /** Opens the dashboard: http://HOST:PORT/ on an open server, else a one-time sign-in link (null: no dashboard). */
  readonly dashboardUrl?: string | null;
  /** Another one-time dashboard link (each works once). */
  dashboardLink?(): string | null;
  readonly app: FastifyInstance;
  close(): Promise<void>;
}

/** The shortest token an API reachable beyond this machine takes (one a person could guess is no lock). */
export const MIN_NETWORK_TOKEN_CHARS = 16;

/**
 * Refuses a host that is no address (OPTIONS_INVALID), an open (token-less) API anywhere but loopback, and one behind
 * a token short enough to guess.
 */
export function checkBind(host: string, tokens: readonly (string | TokenSpec)[]): void {
  const problem = listenHostProblem(host);
  if (problem !== null) throw new LightwireError('OPTIONS_INVALID', { option: 'host', reason: `${problem}: ${quoted(host)}` });
  if (isLoopbackHost(host)) return;
  if (tokens.length === 0) throw new LightwireError('SERVE_UNSAFE_BIND', { host });
  const texts = tokens.map((t) => (typeof t === 'string' ? parseTokenSpec(t).token : t.token));
  if (texts.some((t) => t.length < MIN_NETWORK_TOKEN_CHARS)) throw new LightwireError('SERVE_WEAK_TOKEN', { host, minChars: MIN_NETWORK_TOKEN_CHARS });
}

function frameworkError(err: FastifyError): LightwireError {
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') return new LightwireError('URL_TOO_LONG', { maxChars: MAX_PARAM_CHARS });
  if (err.code === 'FST_ERR_BAD_URL') return new LightwireError('URL_INVALID', { reason: 'a percent-escape does not decode' });
  return new LightwireError('URL_INVALID', { reason: err.message });
}

/** What Node's HTTP parser reported, as a v1 error (its own answers have neither the v1 body nor our headers). */
function parserError(err: Error & { code?: string }, timeoutMs: number): LightwireError {
  if (err.code === 'HPE_HEADER_OVERFLOW') return new LightwireError('HEADERS_TOO_LARGE', { limitBytes: MAX_HEADER_BYTES });
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return new LightwireError('REQUEST_TIMEOUT', { timeoutMs });
  const reason = typeof err.code === 'string' && err.code.startsWith('HPE_') ? err.code.slice(4).toLowerCase().replace(/_/g, ' ') : 'it is malformed';
  return new LightwireError('REQUEST_MALFORMED', { reason });
}

/**
 * Answers a request Node could not parse (or that took too long) in the v1 shape, with the rate-limit headers,
 * then closes the connection. A client that went away (reset, socket gone) gets nothing and is no fault of ours.
 */
function clientErrorHandler(limiter: RateLimiter, bodyLimit: number, timeoutMs: number): (err: Error & { code?: string }, socket: Duplex) => void {
  return (err, socket) => {
    if (err.code === 'ECONNRESET' || err.code === 'EPIPE' || socket.destroyed) return;
    answerOnSocket(socket, limiter, parserError(err, timeoutMs), bodyLimit);
  };
}

/** Writes a v1 error answer (with the rate-limit headers) straight to a connection and closes it. */
function answerOnSocket(socket: Duplex, limiter: RateLimiter, err: LightwireError, bodyLimit: number): void {
  const address = (socket as Duplex & { remoteAddress?: string }).remoteAddress ?? 'unknown';
  const problem = toProblem(err, undefined, bodyLimit);
  const body = JSON.stringify(problem.body);
  const headers = Object.entries(limiter.take(`ip:${address}`).headers).map(([k, v]) => `${k}: ${String(v)}\r\n`).join('');
  if (socket.writable) {
    socket.end(
      `HTTP/1.1 ${problem.status} ${http.STATUS_CODES[problem.status] ?? 'Error'}\r\n` +
        `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${headers}connection: close\r\n\r\n${body}`,
    );
  }
  // Gone for good after a grace period even if the client never reads.
  setTimeout(() => socket.destroy(), 1000).unref();
}

/**
 * What Node would otherwise answer itself, with an empty body, in the v1 shape: an Expect it cannot meet (417), a
 * CONNECT (there is no endpoint for it: 404, as for any other unknown route). An HTTP/1.1 request without a Host
 * header is answered by the onRequest hook in buildServer (Node's own check is off for that).
 */
function answerNodeLevelRequests(server: http.Server, limiter: RateLimiter, bodyLimit: number): void {
  server.on('checkExpectation', (req: http.IncomingMessage) => {
    answerOnSocket(req.socket, limiter, new LightwireError('EXPECTATION_FAILED', { expect: String(req.headers.expect) }), bodyLimit);
  });
  server.on('connect', (req: http.IncomingMessage, socket: Duplex) => {
    answerOnSocket(socket, limiter, new LightwireError('ROUTE_NOT_FOUND', { method: 'CONNECT', path: String(req.url), hint: `the API lives under ${API_PREFIX}` }), bodyLimit);
  });
}

/**
 * The Fastify instance with the plugin at /v1, not listening yet (tests use `inject`). Answers outside the
 * plugin (bad URLs, paths outside /v1) use the same error body and rate-limit headers.
 */
export function buildServer(options: ServerOptions, extra: { requireHttps?: boolean; httpsBaseUrl?: string; limiter?: RateLimiter; plain?: boolean } = {}): FastifyInstance {
  const limiter = extra.limiter ?? new RateLimiter({ limit: options.rateLimit ?? null, ...(options.now ? { now: options.now } : {}) });
  const bodyLimit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  const timeoutMs = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const headersMs = Math.min(HEADERS_TIMEOUT_MS, timeoutMs);
  const checkMs = Math.min(TIMEOUT_CHECK_INTERVAL_MS, Math.max(50, Math.round(timeoutMs / 4)));
  const answer = (reply: FastifyReply, request: FastifyRequest, err: LightwireError): void => {
    const rate = limiter.take(`ip:${request.ip}`);
    const problem = toProblem(err, undefined, bodyLimit);
    void reply.headers(rate.headers).code(problem.status).type('application/json; charset=utf-8').send(problem.body);
  };
  const app = Fastify({
    logger: options.logLevel === undefined ? false : { level: options.logLevel, ...(options.logStream ? { stream: options.logStream } : {}) },
    ...(options.logLevel === undefined ? {} : { logController: new RequestLog() }),
    bodyLimit,
    // Node's own guard against slow clients, which Fastify turns off by default.
    requestTimeout: timeoutMs,
    // Node answers a Host-less HTTP/1.1 request itself, with an empty body; the hook below does, in the v1 shape.
    http: { headersTimeout: headersMs, connectionsCheckingInterval: checkMs, requireHostHeader: false },
    clientErrorHandler: clientErrorHandler(limiter, bodyLimit, timeoutMs),
    routerOptions: { maxParamLength: MAX_PARAM_CHARS },
    ...(options.tls && !extra.plain
      ? { https: { cert: options.tls.cert, key: options.tls.key, headersTimeout: headersMs, connectionsCheckingInterval: checkMs, requireHostHeader: false } }
      : {}),
    frameworkErrors: (err, request, reply) => answer(reply, request, frameworkError(err)),
  }) as unknown as FastifyInstance;
  answerNodeLevelRequests(app.server as http.Server, limiter, bodyLimit);
  app.addHook('onRequest', async (request, reply) => {
    const raw = request.raw;
    if (raw.headers.host === undefined && raw.httpVersionMajor === 1 && raw.httpVersionMinor >= 1) {
      answer(reply, request, new LightwireError('REQUEST_MALFORMED', { reason: 'an HTTP/1.1 request needs a Host header' }));
      return reply;
    }
    return undefined;
  });
  const { host: _host, port: _port, tls: _tls, httpPort: _httpPort, rateLimit: _rateLimit, logLevel: _logLevel, logStream: _logStream, requestTimeoutMs: _requestTimeoutMs, closeGraceMs: _closeGraceMs, dashboard, ...api } = options;
  // The cloud's v1 at /v1, and beside it our own renaming endpoints (the v1 contract has none), with the same rules.
  for (const [plugin, prefix] of [[lightwireApi, API_PREFIX], [namingApi, NAMING_PREFIX]] as const) {
    void app.register(plugin, {
      ...api,
      prefix,
      limiter,
      ...(extra.requireHttps ? { requireHttps: true } : {}),
      ...(extra.httpsBaseUrl ? { httpsBaseUrl: extra.httpsBaseUrl } : {}),
    });
  }
  if (dashboard !== false && !extra.plain) mountDashboard(app, { ...(typeof dashboard === 'object' ? dashboard : {}), service: options.service, ...(options.tokens ? { tokens: options.tokens } : {}), ...(options.now ? { now: options.now } : {}) });
  app.setNotFoundHandler((request, reply) => {
    const path = rawPath(request.raw.url);
    answer(reply, request, new LightwireError('ROUTE_NOT_FOUND', { method: request.method, path, hint: `the API lives under ${API_PREFIX}; see ${API_PREFIX}/openapi.json` }));
  });
  return app;
}

function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

function checkPort(option: string, port: number): void {
  if (!Number.isInteger(port) || port < 0 || port > PORT_MAX) {
    throw new LightwireError('OPTIONS_INVALID', { option, reason: `must be an integer from 0 to ${PORT_MAX}` });
  }
}

/** Listens (TLS when `tls` is given) and, with TLS and `httpPort`, opens the plain 426 listener too. */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const host = options.host ?? DEFAULT_HOST;
  const port = options.port ?? DEFAULT_PORT;
  checkPort('port', port);
  if (options.httpPort !== undefined) {
    checkPort('httpPort', options.httpPort);
    if (!options.tls) throw new LightwireError('OPTIONS_INVALID', { option: 'httpPort', reason: 'only makes sense with TLS (it answers 426 to plain HTTP)' });
  }
  checkBind(host, options.tokens ?? []);
  const limiter = new RateLimiter({ limit: options.rateLimit ?? null, ...(options.now ? { now: options.now } : {}) });
  const app = buildServer(options, { limiter });
  await app.listen({ host, port });
  const actualPort = (app.server.address() as { port: number }).port;
  const scheme = options.tls ? 'https' : 'http';
  const url = `${scheme}://${urlHost(host)}:${actualPort}${API_PREFIX}`;

  let plain: FastifyInstance | null = null;
  let plainUrl: string | null = null;
  if (options.tls && options.httpPort !== undefined) {
    plain = buildServer(options, { limiter, requireHttps: true, httpsBaseUrl: url, plain: true });
    try {
      await plain.listen({ host, port: options.httpPort });
    } catch (err) {
      await app.close();
      throw err;
    }
    plainUrl = `http://${urlHost(host)}:${(plain.server.address() as { port: number }).port}${API_PREFIX}`;
  }
  return {
    url,
    port: actualPort,
    plainUrl,
    dashboardUrl: dashboardOf(app)?.link(url.slice(0, -API_PREFIX.length)) ?? null,
    dashboardLink: () => dashboardOf(app)?.link(url.slice(0, -API_PREFIX.length)) ?? null,
    app,
    close: async () => {
      const servers = [app, plain].filter((a): a is FastifyInstance => a !== null);
      const closing = Promise.all(servers.map((a) => a.close()));
      // Idle connections close at once (Fastify's default); one with a request still arriving or being answered gets
      // the grace, then is cut.
      const cut = setTimeout(() => servers.forEach((a) => (a.server as http.Server).closeAllConnections()), options.closeGraceMs ?? CLOSE_GRACE_MS);
      try {
        await closing;
      } finally {
        clearTimeout(cut);
      }
    },
  };
}

// A Fastify server around the v1 plugin: safe defaults (loopback, size limits), optional TLS, and the
// choice for 426 (http-api-v1.md §2): a TLS port cannot answer plain HTTP at all (the bytes fail the
// handshake before any request exists), so with TLS on, `httpPort` opens a second, plain listener whose
// every /v1 request is answered 426 Upgrade Required with the https URL. The plugin decides by
// `request.protocol`, so the same rule holds behind a TLS-terminating proxy (trustProxy) too.

import Fastify, { LogController, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { LightwireError } from '../index.js';
import { isLoopbackHost } from './auth.js';
import { toProblem } from './errors.js';
import { DEFAULT_BODY_LIMIT_BYTES, lightwireApi, type HttpApiOptions } from './plugin.js';
import { RateLimiter } from './rate-limit.js';

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 3000;
/** The longest path segment (a selector): 25 selectors of percent-encoded labels fit in 8 KiB. */
export const MAX_PARAM_CHARS = 8192;
export const API_PREFIX = '/v1';
/** A whole request (headers and body) must arrive within this; writes answer within the service's deadline. */
export const REQUEST_TIMEOUT_MS = 30_000;

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
  readonly app: FastifyInstance;
  close(): Promise<void>;
}

/** Refuses an open (token-less) API anywhere but loopback. */
export function checkBind(host: string, tokenCount: number): void {
  if (tokenCount === 0 && !isLoopbackHost(host)) throw new LightwireError('SERVE_UNSAFE_BIND', { host });
}

function frameworkError(err: FastifyError): LightwireError {
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') return new LightwireError('URL_TOO_LONG', { maxChars: MAX_PARAM_CHARS });
  if (err.code === 'FST_ERR_BAD_URL') return new LightwireError('URL_INVALID', { reason: 'a percent-escape does not decode' });
  return new LightwireError('URL_INVALID', { reason: err.message });
}

/**
 * The Fastify instance with the plugin at /v1, not listening yet (tests use `inject`). Answers outside the
 * plugin (bad URLs, paths outside /v1) use the same error body and rate-limit headers.
 */
export function buildServer(options: ServerOptions, extra: { requireHttps?: boolean; httpsBaseUrl?: string; limiter?: RateLimiter; plain?: boolean } = {}): FastifyInstance {
  const limiter = extra.limiter ?? new RateLimiter({ limit: options.rateLimit ?? null, ...(options.now ? { now: options.now } : {}) });
  const bodyLimit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
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
    requestTimeout: REQUEST_TIMEOUT_MS,
    routerOptions: { maxParamLength: MAX_PARAM_CHARS },
    ...(options.tls && !extra.plain ? { https: { cert: options.tls.cert, key: options.tls.key } } : {}),
    frameworkErrors: (err, request, reply) => answer(reply, request, frameworkError(err)),
  }) as unknown as FastifyInstance;
  const { host: _host, port: _port, tls: _tls, httpPort: _httpPort, rateLimit: _rateLimit, logLevel: _logLevel, logStream: _logStream, ...api } = options;
  void app.register(lightwireApi, {
    ...api,
    prefix: API_PREFIX,
    limiter,
    ...(extra.requireHttps ? { requireHttps: true } : {}),
    ...(extra.httpsBaseUrl ? { httpsBaseUrl: extra.httpsBaseUrl } : {}),
  });
  app.setNotFoundHandler((request, reply) => {
    const path = (request.raw.url ?? '').split('?')[0] ?? '';
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
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new LightwireError('OPTIONS_INVALID', { option, reason: 'must be an integer from 0 to 65535' });
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
  checkBind(host, options.tokens?.length ?? 0);
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
    app,
    close: async () => {
      await Promise.all([app.close(), plain?.close()]);
    },
  };
}

// The dashboard's routes, beside the v1 API (core/http/README.md, "Dashboard"):
//   GET  /                 the page (with a session), or the sign-in page
//   GET  /dashboard.js|css the page's assets (public, cached under a content hash)
//   GET  /session?key=K    a one-time link: starts a session, then 303 to /
//   POST /session          starts a session: a token from the sign-in form, or (open server) the page's button
//   POST /session/end      ends it
//   GET  /events           the server-sent event stream (dashboard/events.ts)
//   POST /api/action       what the page asks of the lights (dashboard/actions.ts)
//   GET  /api/doctor       the network doctor's report (core/doctor), for the page and for scripts
//
// Who may do what:
// * Without tokens the server is open to this machine only, like /v1: every route answers 403 unless the peer
//   is loopback and the Host header a loopback name (a DNS-rebinding page sends its own host name).
// * The page's requests authenticate with the session cookie, must be same-origin (Origin, when sent, is this
//   server's; Sec-Fetch-Site, when sent, is same-origin) and, for /api, carry the session's CSRF token in the
//   x-lightwire-csrf header. A request with an Origin header therefore still needs a credential, as on /v1: here
//   the session and its token.
// * /api/doctor also takes a Bearer token with the read scope (scripts, monitoring), or, on an open server, a
//   request without Origin or Sec-Fetch-Site (not from a browser), as /v1 does.

import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LightwireError } from '../index.js';
import { TokenSet, hostOfHeader, isLoopbackHost, type TokenSpec } from './auth.js';
import { parseAction, runAction } from './dashboard/actions.js';
import { toProblem } from './errors.js';
import { DASHBOARD_JS } from './dashboard/client-js.js';
import { EventHub } from './dashboard/events.js';
import { CONTENT_SECURITY_POLICY, CSS_PATH, JS_PATH, dashboardPage, signInPage } from './dashboard/page.js';
import { canFeedDashboard, type DashboardService } from './dashboard/service.js';
import { CSRF_HEADER, SessionStore, clearedCookie, cookieName, readCookie, sameSecret, sessionCookie, type Session } from './dashboard/session.js';
import { DASHBOARD_CSS } from './dashboard/styles.js';
import type { Scope } from './schemas.js';
import type { LightApi } from './service-api.js';

export interface DashboardOptions {
  readonly service: LightApi;
  readonly tokens?: readonly (string | TokenSpec)[];
  /** Read every light about once a second while a page is open, so changes made elsewhere show (default true). */
  readonly liveRefresh?: boolean;
  /** The report behind /api/doctor; default: the service's own (LightService.doctorReport). */
  readonly doctor?: (request: { readonly probeCount: number }) => Promise<unknown>;
  readonly now?: () => number;
}

/** What the server keeps of a mounted dashboard: where to send a browser. */
export interface DashboardHandle {
  /** Whether the server is open (no tokens): the page itself starts a session. */
  readonly open: boolean;
  /** A URL that opens the dashboard: `origin/` when open, else a one-time sign-in link. */
  link(origin: string): string;
  readonly sessions: SessionStore;
  readonly hub: EventHub;
}

/** Most probes per light /api/doctor will send for one report. */
export const MAX_ENDPOINT_PROBE_COUNT = 50;
const FORM_LIMIT_BYTES = 4096;
const ACTION_LIMIT_BYTES = 16 * 1024;

const handles = new WeakMap<FastifyInstance, DashboardHandle>();

/** The dashboard mounted on `app` by mountDashboard, if any. */
export function dashboardOf(app: FastifyInstance): DashboardHandle | undefined {
  return handles.get(app);
}

interface Asset {
  readonly type: string;
  readonly body: Buffer;
  readonly gzip: Buffer;
}

function asset(type: string, text: string): Asset {
  const body = Buffer.from(text, 'utf8');
  return { type, body, gzip: gzipSync(body, { level: 9 }) };
}

const ASSETS: Readonly<Record<string, Asset>> = {
  [JS_PATH]: asset('text/javascript; charset=utf-8', DASHBOARD_JS),
  [CSS_PATH]: asset('text/css; charset=utf-8', DASHBOARD_CSS),
};

/** Bytes of the page's assets (raw and gzip), for the page-weight figure. */
export function dashboardAssetBytes(): { js: number; css: number; jsGzip: number; cssGzip: number } {
  const js = ASSETS[JS_PATH]!;
  const css = ASSETS[CSS_PATH]!;
  return { js: js.body.length, css: css.body.length, jsGzip: js.gzip.length, cssGzip: css.gzip.length };
}

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  // Not no-referrer: with it Chromium sends `Origin: null` on the sign-in form's POST, which must show our origin.
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
} as const;

function fail(reply: FastifyReply, err: LightwireError): FastifyReply {
  return reply
    .code(err.httpStatus)
    .headers({ ...SECURITY_HEADERS, 'cache-control': 'no-store' })
    .type('application/json; charset=utf-8')
    .send({ error: err.message, code: err.code });
}

function forbidden(reason: string): LightwireError<'FORBIDDEN'> {
  return new LightwireError('FORBIDDEN', { reason });
}

function noSession(open: boolean): LightwireError<'SESSION_REQUIRED'> {
  return new LightwireError('SESSION_REQUIRED', {
    reason: open
      ? 'open the dashboard page of this server to start one'
      : 'sign in on the dashboard page with an access token, or open a dashboard link printed by lightwire serve',
  });
}

/** Whether an Accept-Encoding header takes gzip: named (or `*`) without q=0 (RFC 9110 §12.5.3). */
export function acceptsGzip(header: string): boolean {
  let star = false;
  for (const part of header.split(',')) {
    const [coding = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const wanted = q === undefined || Number(q.slice(2)) > 0;
    if (coding === 'gzip' || coding === 'x-gzip') return wanted;
    if (coding === '*') star = wanted;
  }
  return star;
}

/**
 * Mounts the dashboard routes on `app` (outside /v1), when the service can feed it (it emits the service's
 * events); returns the handle, or null when it was not mounted.
 */
export function mountDashboard(app: FastifyInstance, options: DashboardOptions): DashboardHandle | null {
  const service = options.service;
  if (!canFeedDashboard(service)) return null;
  const tokens = new TokenSet(options.tokens ?? []);
  const open = tokens.size === 0;
  const sessions = new SessionStore(options.now);
  const hub = new EventHub(service, { ...(options.liveRefresh === false ? { liveRefresh: false } : {}), ...(options.now ? { now: options.now } : {}) });
  const handle: DashboardHandle = {
    open,
    sessions,
    hub,
    link: (origin) => (open ? `${origin}/` : `${origin}/session?key=${sessions.mintKey()}`),
  };
  handles.set(app, handle);
  const doctor = options.doctor ?? ((request) => service.doctorReport(request));
  void app.register(async (scope) => routes(scope, { service, tokens, open, sessions, hub, doctor }));
  return handle;
}

interface Context {
  readonly service: DashboardService;
  readonly tokens: TokenSet;
  readonly open: boolean;
  readonly sessions: SessionStore;
  readonly hub: EventHub;
  readonly doctor: DashboardOptions['doctor'];
}

async function routes(app: FastifyInstance, c: Context): Promise<void> {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_LIMIT_BYTES }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  // Open event streams would hold the server's close forever.
  app.addHook('preClose', async () => c.hub.closeAll());
  // A body Fastify could not parse (not JSON, too large) gets the dashboard's coded shape, not Fastify's own.
  app.setErrorHandler((err, request, reply) => {
    // The limit that was passed: the route's (a form's is smaller than an action's).
    const problem = toProblem(err, undefined, request.routeOptions.bodyLimit ?? ACTION_LIMIT_BYTES);
    if (problem.fault) request.log.error({ err }, 'dashboard request failed');
    return reply
      .code(problem.status)
      .headers({ ...SECURITY_HEADERS, 'cache-control': 'no-store' })
      .type('application/json; charset=utf-8')
      .send({ error: problem.body.error, code: problem.body.code });
  });

  const cookieOf = (request: FastifyRequest): string => cookieName(request.socket.localPort ?? 0);
  const secure = (request: FastifyRequest): boolean => request.protocol === 'https';
  const sessionOf = (request: FastifyRequest): Session | undefined => c.sessions.get(readCookie(request.headers.cookie, cookieOf(request)));

  /** Open server: this machine only, by peer address and by Host name (DNS rebinding). */
  const localOnly = (request: FastifyRequest): LightwireError | null => {
    if (!c.open) return null;
    if (!isLoopbackHost(request.socket.remoteAddress ?? request.ip)) return new LightwireError('LOOPBACK_ONLY', { reason: 'this server has no tokens and only answers this machine' });
    if (!isLoopbackHost(hostOfHeader(request.headers.host ?? ''))) return forbidden('the Host header must name this machine (127.0.0.1 or localhost)');
    return null;
  };
  const sameOrigin = (request: FastifyRequest): boolean => {
    const origin = request.headers.origin;
    return origin === undefined || origin.toLowerCase() === `${request.protocol}://${request.headers.host ?? ''}`.toLowerCase();
  };
  const fetchSite = (request: FastifyRequest): string | undefined => {
    const v = request.headers['sec-fetch-site'];
    return typeof v === 'string' ? v : undefined;
  };
  const startSession = (request: FastifyRequest, reply: FastifyReply, scopes: readonly Scope[]): void => {
    const { id } = c.sessions.create(scopes);
    void reply.header('set-cookie', sessionCookie(cookieOf(request), id, secure(request)));
  };
  const html = (reply: FastifyReply, status: number, body: string): FastifyReply =>
    reply
      .code(status)
      .headers({ ...SECURITY_HEADERS, 'content-security-policy': CONTENT_SECURITY_POLICY, 'cache-control': 'no-store' })
      .type('text/html; charset=utf-8')
      .send(body);
  const seeOther = (reply: FastifyReply): FastifyReply => reply.code(303).headers({ ...SECURITY_HEADERS, 'cache-control': 'no-store', location: '/' }).send();

  /**
   * The page's requests: the session cookie, same-origin, and the CSRF header when `csrf`; `bearer` also lets
   * scripts in with a token (or, on an open server, without a browser's headers). The session or 'script'.
   */
  const guard = (request: FastifyRequest, scope: Scope, opts: { csrf: boolean; bearer: boolean }): Session | 'script' | LightwireError => {
    const local = localOnly(request);
    if (local !== null) return local;
    const session = sessionOf(request);
    if (session === undefined) {
      if (opts.bearer && request.headers.authorization !== undefined && !c.open) {
        const auth = c.tokens.authenticate(request.headers.authorization);
        if (!auth.ok) return auth.error;
        if (!auth.scopes.includes(scope)) return forbidden(`this token lacks the ${scope} scope`);
        return 'script';
      }
      if (opts.bearer && c.open && request.headers.origin === undefined && fetchSite(request) === undefined) return 'script';
      return noSession(c.open);
    }
    if (!sameOrigin(request)) return forbidden('requests from another origin cannot use the dashboard session');
    const site = fetchSite(request);
    if (site !== undefined && site !== 'same-origin') return forbidden('requests from another site cannot use the dashboard session');
    if (opts.csrf) {
      const token = request.headers[CSRF_HEADER];
      if (typeof token !== 'string' || !sameSecret(token, session.csrf)) return forbidden(`the ${CSRF_HEADER} header is missing or wrong`);
    }
    if (!session.scopes.includes(scope)) return forbidden(`this session lacks the ${scope} scope`);
    return session;
  };

  app.get('/', async (request, reply) => {
    const local = localOnly(request);
    if (local !== null) return html(reply, local.httpStatus, signInPage({ tokens: !c.open, error: local.message }));
    const session = sessionOf(request);
    if (session !== undefined) return html(reply, 200, dashboardPage(session.csrf, session.scopes));
    // Open server: opening the page (typed, bookmarked, or from itself) starts a session; a page of another site
    // navigating here gets the button instead.
    const site = fetchSite(request);
    if (c.open && (site === undefined || site === 'none' || site === 'same-origin')) {
      const { id, session: created } = c.sessions.create(['read', 'control']);
      void reply.header('set-cookie', sessionCookie(cookieOf(request), id, secure(request)));
      return html(reply, 200, dashboardPage(created.csrf, created.scopes));
    }
    return html(reply, 200, signInPage({ tokens: !c.open }));
  });

  for (const [path, a] of Object.entries(ASSETS)) {
    app.get(path, async (request, reply) => {
      const gzip = acceptsGzip(String(request.headers['accept-encoding'] ?? ''));
      void reply.headers({ ...SECURITY_HEADERS, 'cache-control': 'public, max-age=31536000, immutable', vary: 'accept-encoding' }).type(a.type);
      if (gzip) void reply.header('content-encoding', 'gzip');
      return reply.send(gzip ? a.gzip : a.body);
    });
  }

  app.get<{ Querystring: { key?: string } }>('/session', async (request, reply) => {
    const local = localOnly(request);
    if (local !== null) return html(reply, local.httpStatus, signInPage({ tokens: !c.open, error: local.message }));
    const key = typeof request.query.key === 'string' ? request.query.key : '';
    if (key === '' || !c.sessions.redeemKey(key)) {
      return html(reply, 401, signInPage({ tokens: !c.open, error: 'This dashboard link was already used or has expired.' }));
    }
    startSession(request, reply, ['read', 'control']);
    return seeOther(reply);
  });

  app.post<{ Body: Record<string, string> | undefined }>('/session', { bodyLimit: FORM_LIMIT_BYTES }, async (request, reply) => {
    const local = localOnly(request);
    if (local !== null) return html(reply, local.httpStatus, signInPage({ tokens: !c.open, error: local.message }));
    const site = fetchSite(request);
    if (!sameOrigin(request) || (site !== undefined && site !== 'same-origin' && site !== 'none')) {
      return html(reply, 403, signInPage({ tokens: !c.open, error: 'Sign in from this server’s own page.' }));
    }
    if (c.open) {
      startSession(request, reply, ['read', 'control']);
      return seeOther(reply);
    }
    const token = typeof request.body?.token === 'string' ? request.body.token : '';
    const auth = c.tokens.authenticate(`Bearer ${token}`);
    if (!auth.ok) return html(reply, 401, signInPage({ tokens: true, error: 'That token is not one this server knows.' }));
    startSession(request, reply, auth.scopes);
    return seeOther(reply);
  });

  app.post('/session/end', async (request, reply) => {
    if (!sameOrigin(request)) return fail(reply, forbidden('requests from another origin cannot end the session'));
    c.sessions.end(readCookie(request.headers.cookie, cookieOf(request)));
    void reply.header('set-cookie', clearedCookie(cookieOf(request), secure(request)));
    return seeOther(reply);
  });

  app.get('/events', async (request, reply) => {
    const who = guard(request, 'read', { csrf: false, bearer: false });
    if (who instanceof LightwireError) return fail(reply, who);
    reply.hijack();
    // The open stream keeps its session alive (a page that only watches uses it), and ends with it.
    const id = readCookie(request.headers.cookie, cookieOf(request));
    c.hub.attach(reply.raw, () => c.sessions.get(id) !== undefined);
  });

  app.post('/api/action', { bodyLimit: ACTION_LIMIT_BYTES }, async (request, reply) => {
    const who = guard(request, 'control', { csrf: true, bearer: false });
    if (who instanceof LightwireError) return fail(reply, who);
    if (!/^application\/json\b/i.test(String(request.headers['content-type'] ?? ''))) {
      return fail(reply, new LightwireError('BODY_INVALID', { reason: 'must be application/json' }));
    }
    try {
      const results = await runAction(c.service, parseAction(request.body));
      return reply.headers({ ...SECURITY_HEADERS, 'cache-control': 'no-store' }).send({ results });
    } catch (err) {
      if (err instanceof LightwireError) return fail(reply, err);
      throw err;
    }
  });

  app.get<{ Querystring: { probeCount?: string } }>('/api/doctor', async (request, reply) => {
    const who = guard(request, 'read', { csrf: true, bearer: true });
    if (who instanceof LightwireError) return fail(reply, who);
    if (c.doctor === undefined) return fail(reply, new LightwireError('ROUTE_NOT_FOUND', { method: 'GET', path: '/api/doctor', hint: 'this server has no doctor' }));
    const text = request.query.probeCount ?? '0';
    const probeCount = Number(text);
    if (!/^\d+$/.test(text) || probeCount > MAX_ENDPOINT_PROBE_COUNT) {
      return fail(reply, new LightwireError('PARAMETER_INVALID', { field: 'probeCount', reason: `must be an integer from 0 to ${MAX_ENDPOINT_PROBE_COUNT}` }));
    }
    const report = await c.doctor({ probeCount });
    return reply.headers({ ...SECURITY_HEADERS, 'cache-control': 'no-store' }).send(report);
  });
}

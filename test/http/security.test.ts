import { expect } from 'chai';
import http from 'node:http';
import net from 'node:net';
import { isLightwireError, LightwireError } from '../../core/errors.js';
import { TokenSet, isLoopbackHost, parseTokenSpec, presentedToken } from '../../core/http/auth.js';
import { RateLimiter, UNENFORCED_LIMIT } from '../../core/http/rate-limit.js';
import { buildServer, checkBind, startServer } from '../../core/http/server.js';
import { apiRig, DESK, rateHeaders, type ApiRig } from './helpers.js';
import { turns } from '../helpers/wait.js';

type Body = Record<string, any>;

const CONTROL = 'c0ntrol-token-0123456789abcdef';
const READER = 'read-only-token';
const CLOUD = 'cloud-style-token';
const basic = (user: string, password = ''): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const bearer = (token: string): string => `Bearer ${token}`;

const oneLight = { lights: [{ serial: DESK, product: 91, label: 'Desk', power: 'on' as const }] };

describe('HTTP API v1 security', function () {
  this.timeout(20_000);

  describe('tokens and scopes', () => {
    let rig: ApiRig;
    before(async () => {
      rig = await apiRig(oneLight, { tokens: [CONTROL, `${READER}:read`, `${CLOUD}:remote_control:all`] });
    });
    after(() => rig.close());

    it('answers 401 without a token, with WWW-Authenticate and the rate-limit headers', async () => {
      const res = await rig.call({ method: 'GET', url: '/v1/lights/all' });
      expect(res.statusCode).to.equal(401);
      expect(res.json()).to.deep.equal({ error: 'Bad access token: send "Authorization: Bearer <token>"', errors: [], code: 'UNAUTHORIZED' });
      expect(res.headers['www-authenticate']).to.equal('Bearer realm="lightwire"');
      expect(rateHeaders(res).limit).to.equal(UNENFORCED_LIMIT);
    });

    it('answers 401 for a wrong token, a token differing in one character, and an unknown scheme', async () => {
      for (const authorization of [bearer('nope'), bearer(`${CONTROL.slice(0, -1)}x`), bearer(`${CONTROL}x`), `Token ${CONTROL}`, 'Bearer']) {
        const res = await rig.call({ method: 'GET', url: '/v1/lights/all', headers: { authorization } });
        expect(res.statusCode, authorization).to.equal(401);
        expect(res.json().code).to.equal('UNAUTHORIZED');
      }
    });

    it('accepts the token as Bearer and as Basic with the token as user name and an empty password', async () => {
      for (const authorization of [bearer(CONTROL), basic(CONTROL), `bearer ${CONTROL}`]) {
        const res = await rig.call({ method: 'GET', url: '/v1/lights/all', headers: { authorization } });
        expect(res.statusCode, authorization).to.equal(200);
        expect((res.json() as Body[])[0]!.id).to.equal(DESK);
      }
    });

    it('lets a read token list lights and scenes and validate colours, and answers 403 to its writes', async () => {
      const headers = { authorization: bearer(READER) };
      for (const url of ['/v1/lights/all', '/v1/scenes', '/v1/color?string=red']) {
        expect((await rig.call({ method: 'GET', url, headers })).statusCode, url).to.equal(200);
      }
      const write = await rig.call({ method: 'PUT', url: '/v1/lights/all/state', headers, payload: { power: 'off' } });
      expect(write.statusCode).to.equal(403);
      expect(write.json()).to.deep.equal({ error: 'Permission denied: this endpoint needs the control scope; the token has read', errors: [], code: 'FORBIDDEN' });
      expect(rig.fleet.light(DESK).received('SetLightPower')).to.have.length(0);
    });

    it('treats remote_control:all (the cloud OAuth scope) as control', async () => {
      const res = await rig.call({ method: 'POST', url: '/v1/lights/all/toggle', headers: { authorization: basic(CLOUD) }, payload: { duration: 0 } });
      expect(res.statusCode).to.equal(207);
      expect(res.json()).to.deep.equal({ results: [{ id: DESK, label: 'Desk', status: 'ok', power: 'off' }] });
    });

    it('serves the OpenAPI document without a token', async () => {
      const res = await rig.call({ method: 'GET', url: '/v1/openapi.json' });
      expect(res.statusCode).to.equal(200);
      expect((res.json() as Body).openapi).to.equal('3.1.0');
    });

    it('answers a CORS preflight without a token and marks answers to web pages readable', async () => {
      const preflight = await rig.call({ method: 'OPTIONS', url: '/v1/lights/all/state', headers: { origin: 'https://app.example', 'access-control-request-method': 'PUT' } });
      expect(preflight.statusCode).to.equal(204);
      expect(preflight.headers['access-control-allow-origin']).to.equal('*');
      expect(preflight.headers['access-control-allow-headers']).to.equal('Authorization, Content-Type');
      expect(preflight.headers['access-control-allow-methods']).to.equal('GET, PUT, POST');
      const get = await rig.call({ method: 'GET', url: '/v1/lights/all', headers: { origin: 'https://app.example', authorization: bearer(READER) } });
      expect(get.statusCode).to.equal(200);
      expect(get.headers['access-control-allow-origin']).to.equal('*');
      expect(get.headers['access-control-expose-headers']).to.equal('X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset');
    });
  });

  describe('without a token (loopback only)', () => {
    let rig: ApiRig;
    before(async () => {
      rig = await apiRig(oneLight);
    });
    after(() => rig.close());

    it('answers this machine without a token', async () => {
      const res = await rig.call({ method: 'GET', url: '/v1/lights/all', remoteAddress: '127.0.0.1', headers: { host: '127.0.0.1:3000' } });
      expect(res.statusCode).to.equal(200);
      const v6 = await rig.call({ method: 'GET', url: '/v1/lights/all', remoteAddress: '::1', headers: { host: 'localhost:3000' } });
      expect(v6.statusCode).to.equal(200);
    });

    it('answers 401 to another machine', async () => {
      const res = await rig.call({ method: 'GET', url: '/v1/lights/all', remoteAddress: '172.20.1.20' });
      expect(res.statusCode).to.equal(401);
      expect(res.json().error).to.equal('Bad access token: no token is configured, so only this machine may call; start the server with --token');
    });

    it('answers 403 to a Host that is not a loopback name (DNS rebinding) and to web pages (Origin)', async () => {
      const rebinding = await rig.call({ method: 'GET', url: '/v1/lights/all', headers: { host: 'evil.example:3000' } });
      expect(rebinding.statusCode).to.equal(403);
      expect(rebinding.json().code).to.equal('FORBIDDEN');
      const page = await rig.call({ method: 'POST', url: '/v1/lights/all/toggle', headers: { origin: 'http://evil.example', 'content-type': 'application/x-www-form-urlencoded' }, payload: 'duration=0' });
      expect(page.statusCode).to.equal(403);
      expect(page.json().error).to.equal('Permission denied: requests from web pages need a token (start the server with --token)');
      expect(rig.fleet.light(DESK).received('SetLightPower')).to.have.length(0);
    });
  });

  describe('rate limit', () => {
    it('answers 429 past the configured limit, with Retry-After, and again 2xx in the next window', async () => {
      let now = 1_700_000_000_000;
      const rig = await apiRig(oneLight, { rateLimit: 3, now: () => now });
      try {
        const answers = [];
        for (let i = 0; i < 4; i++) answers.push(await rig.call({ method: 'GET', url: '/v1/lights/all' }));
        expect(answers.map((a) => a.statusCode)).to.deep.equal([200, 200, 200, 429]);
        expect(answers.map((a) => rateHeaders(a))).to.deep.equal([
          { limit: 3, remaining: 2, reset: 1_700_000_060 },
          { limit: 3, remaining: 1, reset: 1_700_000_060 },
          { limit: 3, remaining: 0, reset: 1_700_000_060 },
          { limit: 3, remaining: 0, reset: 1_700_000_060 },
        ]);
        expect(answers[3]!.json()).to.deep.equal({
          error: 'Rate limit exceeded: 3 requests per 60 s; the next window starts at 1700000060 (Unix seconds)',
          errors: [],
          code: 'RATE_LIMITED',
        });
        expect(answers[3]!.headers['retry-after']).to.equal('60');
        now += 60_000;
        const next = await rig.call({ method: 'GET', url: '/v1/lights/all' });
        expect(next.statusCode).to.equal(200);
        expect(rateHeaders(next)).to.deep.equal({ limit: 3, remaining: 2, reset: 1_700_000_120 });
      } finally {
        await rig.close();
      }
    });

    it('counts each token separately', async () => {
      const rig = await apiRig(oneLight, { rateLimit: 1, tokens: ['alpha', 'beta'] });
      try {
        const a = await rig.call({ method: 'GET', url: '/v1/lights/all', headers: { authorization: bearer('alpha') } });
        const b = await rig.call({ method: 'GET', url: '/v1/lights/all', headers: { authorization: bearer('beta') } });
        const a2 = await rig.call({ method: 'GET', url: '/v1/lights/all', headers: { authorization: bearer('alpha') } });
        expect([a.statusCode, b.statusCode, a2.statusCode]).to.deep.equal([200, 200, 429]);
      } finally {
        await rig.close();
      }
    });

    it('reports but never enforces without a configured limit', () => {
      const limiter = new RateLimiter({ now: () => 0 });
      let last;
      for (let i = 0; i < 500; i++) last = limiter.take('ip:127.0.0.1');
      expect(last!.error).to.equal(null);
      expect(last!.headers).to.deep.equal({ 'x-ratelimit-limit': String(UNENFORCED_LIMIT), 'x-ratelimit-remaining': String(UNENFORCED_LIMIT - 500), 'x-ratelimit-reset': '60' });
    });

    it('drops expired windows once many callers have come and gone', () => {
      let now = 0;
      const limiter = new RateLimiter({ limit: 10, now: () => now });
      for (let i = 0; i < 4096; i++) limiter.take(`ip:10.0.${i >> 8}.${i & 255}`);
      now = 61_000;
      limiter.take('ip:127.0.0.1');
      expect(limiter.callers).to.equal(1);
    });
  });

  describe('HTTPS required (426)', () => {
    it('answers 426 with the https URL to a request that did not come over TLS', async () => {
      const rig = await apiRig(oneLight);
      const app = buildServer({ service: rig.service }, { requireHttps: true, httpsBaseUrl: 'https://127.0.0.1:3443/v1' });
      try {
        const res = await app.inject({ method: 'GET', url: '/v1/lights/all' });
        expect(res.statusCode).to.equal(426);
        expect(JSON.parse(res.body)).to.deep.equal({ error: 'HTTPS is required; repeat the request at https://127.0.0.1:3443/v1', errors: [], code: 'HTTPS_REQUIRED' });
        expect(res.headers.upgrade).to.equal('TLS/1.2, HTTP/1.1');
        expect(rateHeaders(res).limit).to.equal(UNENFORCED_LIMIT);
      } finally {
        await app.close();
        await rig.close();
      }
    });
  });

  describe('safe defaults for listening', () => {
    it('refuses to listen beyond loopback without a token, saying why', async () => {
      for (const host of ['0.0.0.0', '::', '172.20.1.10', 'my-host.local']) {
        expect(() => checkBind(host, []), host).to.throw(/refusing to listen on .* without a token: anyone who can reach this address could control the lights/);
      }
      for (const host of ['127.0.0.1', '127.8.9.10', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1']) {
        expect(() => checkBind(host, []), host).to.not.throw();
        expect(() => checkBind(host, ['a']), host).to.not.throw();
      }
      expect(() => checkBind('0.0.0.0', ['0123456789abcdef'])).to.not.throw();
      // A host that is no address is named as such, before any question of tokens.
      for (const [host, why] of [
        ['999.999.1.1', /option host is not an IPv4 address \(four numbers from 0 to 255\): "999\.999\.1\.1"/],
        ['127.0.0', /is not an IPv4 address/],
        ['::g', /is not an IPv6 address/],
        ['127.0.0.1:3000', /option host has a port in it; give the address alone, and the port on its own/],
        ['[127.0.0.1]', /is not an IPv6 address/],
        ['my_host', /is not an IP address or a host name/],
        ['host..local', /is not an IP address or a host name/],
      ] as const) {
        expect(() => checkBind(host, ['0123456789abcdef']), host).to.throw(why);
        expect(() => checkBind(host, []), host).to.throw(LightwireError, /^option host/);
      }
      expect(() => checkBind('0.0.0.0', [{ token: '0123456789abcdef', scopes: ['read'] }])).to.not.throw();
      // Beyond loopback a token must not be guessable: 16 characters at least, each of them (scopes do not count).
      for (const tokens of [['a'], ['0123456789abcdef', 'short:read'], ['0123456789abcde:read,control']]) {
        expect(() => checkBind('0.0.0.0', tokens), tokens.join(' ')).to.throw(/refusing to listen on 0\.0\.0\.0 with a token shorter than 16 characters/);
      }
      const rig = await apiRig(oneLight);
      try {
        const err = await startServer({ service: rig.service, host: '0.0.0.0', port: 0 }).then(
          () => null,
          (e: unknown) => e,
        );
        expect(isLightwireError(err, 'SERVE_UNSAFE_BIND')).to.equal(true);
      } finally {
        await rig.close();
      }
    });
  });

  describe('stopping', () => {
    it('stops within its grace though a client holds half a request, cutting that connection', async () => {
      const rig = await apiRig(oneLight);
      try {
        const server = await startServer({ service: rig.service, port: 0, closeGraceMs: 300 });
        const socket = net.connect(server.port, '127.0.0.1');
        socket.on('error', () => undefined);
        const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
        await new Promise<void>((resolve) => socket.on('connect', () => resolve()));
        // Headers without the blank line that ends them: the request is never complete.
        // Written to the kernel (the callback), then two turns of the event loop: the server's poll phase has read it.
        await new Promise<void>((resolve) => socket.write('GET /v1/lights/all HTTP/1.1\r\nHost: 127.0.0.1\r\n', () => resolve()));
        await turns();
        const t0 = performance.now();
        await server.close();
        const tookMs = performance.now() - t0;
        await closed;
        expect(tookMs).to.be.at.least(250).and.below(2000);
      } finally {
        await rig.close();
      }
    });

    it('lets an idle keep-alive connection go at once', async () => {
      const rig = await apiRig(oneLight);
      try {
        const server = await startServer({ service: rig.service, port: 0, closeGraceMs: 5000 });
        const agent = new http.Agent({ keepAlive: true });
        const status = await new Promise<number>((resolve, reject) => {
          http.get({ host: '127.0.0.1', port: server.port, path: '/v1/lights/all', agent }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          }).on('error', reject);
        });
        expect(status).to.equal(200);
        const t0 = performance.now();
        await server.close();
        expect(performance.now() - t0).to.be.below(1000);
        agent.destroy();
      } finally {
        await rig.close();
      }
    });
  });

  describe('auth helpers', () => {
    it('parses TOKEN[:SCOPES] and rejects tokens a header could not carry', () => {
      expect(parseTokenSpec('abc')).to.deep.equal({ token: 'abc', scopes: ['read', 'control'] });
      expect(parseTokenSpec('abc:read')).to.deep.equal({ token: 'abc', scopes: ['read'] });
      expect(parseTokenSpec('abc:read,control')).to.deep.equal({ token: 'abc', scopes: ['read', 'control'] });
      expect(parseTokenSpec('abc:remote_control:all')).to.deep.equal({ token: 'abc', scopes: ['read', 'control'] });
      for (const bad of ['', 'has space', 'abc:', 'abc:write', 'tøken', ':read']) {
        expect(() => parseTokenSpec(bad), bad).to.throw(/option token/);
      }
      expect(() => new TokenSet(['a', 'a:read'])).to.throw(/the same token is given twice/);
    });

    it('reads Bearer and Basic headers, and nothing else', () => {
      expect(presentedToken(undefined)).to.equal(undefined);
      expect(presentedToken('Bearer  abc ')).to.equal('abc');
      expect(presentedToken(basic('abc'))).to.equal('abc');
      expect(presentedToken(basic('abc', 'ignored'))).to.equal('abc');
      expect(presentedToken('Digest abc')).to.equal(null);
      expect(presentedToken('abc')).to.equal(null);
    });

    it('knows loopback hosts in every spelling and nothing else', () => {
      for (const host of ['127.0.0.1', '127.255.0.9', 'LOCALHOST', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', '::ffff:7f00:2']) {
        expect(isLoopbackHost(host), host).to.equal(true);
      }
      for (const host of ['128.0.0.1', '172.21.0.1', '::', '::2', '::ffff:172.21.0.1', 'localhost.evil.example', '', '0.0.0.0']) {
        expect(isLoopbackHost(host), host).to.equal(false);
      }
    });
  });
});

// The dashboard's routes without a browser: who gets a session, what a request needs to drive the lights, and
// that the v1 API's Origin rule is untouched. Lights are virtual, on loopback.

import { expect } from 'chai';
import type { FastifyInstance } from 'fastify';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import vm from 'node:vm';
import { DASHBOARD_JS } from '../../../core/http/dashboard/client-js.js';
import { dashboardAssetBytes, dashboardOf } from '../../../core/http/dashboard.js';
import { dashboardPage } from '../../../core/http/dashboard/page.js';
import { SessionStore, readCookie, sameSecret } from '../../../core/http/dashboard/session.js';
import { parseAction } from '../../../core/http/dashboard/actions.js';
import { isLightwireError } from '../../../core/errors.js';
import { apiRig, contractFleet, DESK, LEFT, type ApiRig } from '../helpers.js';
import { until } from '../../helpers/wait.js';

const COOKIE = 'lightwire_session_0';
const SWITCH = 'd073d5000009';
const SELF = 'http://localhost:80';

interface SignedIn {
  readonly cookie: string;
  readonly csrf: string;
}

/** GET / as a browser opening the page, on an open server: the session cookie and the page's CSRF token. */
async function openPage(rig: ApiRig): Promise<SignedIn> {
  const res = await rig.call({ method: 'GET', url: '/', headers: { 'sec-fetch-site': 'none' } });
  expect(res.statusCode).to.equal(200);
  const setCookie = String(res.headers['set-cookie']);
  const id = readCookie(setCookie.split(';')[0], COOKIE);
  expect(id, setCookie).to.be.a('string');
  const csrf = /name="lightwire-csrf" content="([^"]+)"/.exec(res.body)?.[1];
  expect(csrf).to.be.a('string');
  return { cookie: `${COOKIE}=${id}`, csrf: csrf! };
}

function action(rig: ApiRig, s: SignedIn, body: unknown, headers: Record<string, string> = {}) {
  return rig.call({
    method: 'POST',
    url: '/api/action',
    headers: { cookie: s.cookie, 'x-lightwire-csrf': s.csrf, 'content-type': 'application/json', origin: SELF, 'sec-fetch-site': 'same-origin', ...headers },
    payload: JSON.stringify(body),
  });
}

describe('dashboard: sessions and the Origin rule', function () {
  this.timeout(20_000);

  describe('open server (no tokens, loopback)', () => {
    let rig: ApiRig;
    before(async () => {
      rig = await apiRig(contractFleet(), { dashboard: { liveRefresh: false } });
    });
    after(async () => rig.close());

    it('opening the page starts a session: HttpOnly, SameSite=Strict cookie, CSRF token in the page, strict CSP', async () => {
      const res = await rig.call({ method: 'GET', url: '/', headers: { 'sec-fetch-site': 'none' } });
      expect(res.statusCode).to.equal(200);
      expect(res.headers['content-type']).to.match(/^text\/html/);
      expect(String(res.headers['set-cookie'])).to.match(/^lightwire_session_0=[\w-]{43}; Path=\/; HttpOnly; SameSite=Strict$/);
      expect(res.headers['content-security-policy']).to.include("script-src 'self'").and.include("frame-ancestors 'none'");
      expect(res.headers['x-frame-options']).to.equal('DENY');
      expect(res.body).to.match(/<meta name="lightwire-csrf" content="[\w-]{43}">/);
    });

    it('a page of another site navigating here gets the button, not a session', async () => {
      const res = await rig.call({ method: 'GET', url: '/', headers: { 'sec-fetch-site': 'cross-site' } });
      expect(res.statusCode).to.equal(200);
      expect(res.headers['set-cookie']).to.equal(undefined);
      expect(res.body).to.include('Open the dashboard').and.not.include('lightwire-csrf');
    });

    it('a Host that is not loopback (DNS rebinding) gets no page and no session', async () => {
      const res = await rig.call({ method: 'GET', url: '/', headers: { host: 'evil.example:3000', 'sec-fetch-site': 'none' } });
      expect(res.statusCode).to.equal(403);
      expect(res.headers['set-cookie']).to.equal(undefined);
      const act = await rig.call({ method: 'POST', url: '/api/action', headers: { host: 'evil.example:3000', 'content-type': 'application/json' }, payload: '{"op":"toggle","selector":"all"}' });
      expect(act.statusCode).to.equal(403);
    });

    it('a peer that is not loopback is refused', async () => {
      const res = await rig.call({ method: 'GET', url: '/', remoteAddress: '192.168.1.50' });
      expect(res.statusCode).to.equal(401);
      expect(res.body).to.include('Not this machine: this server has no tokens').and.not.include('Bad access token');
    });

    it('drives a light with the session, same origin and the CSRF token; the result is per light', async () => {
      const s = await openPage(rig);
      const before = rig.fleet.light(LEFT).state.power;
      const res = await action(rig, s, { op: 'toggle', selector: `id:${LEFT}` });
      expect(res.statusCode, res.body).to.equal(200);
      expect(res.json().results).to.deep.equal([{ id: LEFT, label: 'Living Room/Left', status: 'ok', power: before === 'on' ? 'off' : 'on' }]);
      expect(rig.fleet.light(LEFT).state.power).to.equal(before === 'on' ? 'off' : 'on');
    });

    it('refuses a request with the cookie but without the CSRF token, with a wrong one, from another origin or site', async () => {
      const s = await openPage(rig);
      const before = rig.fleet.light(DESK).state.power;
      const cases: [Record<string, string>, number][] = [
        [{ 'x-lightwire-csrf': '' }, 403],
        [{ 'x-lightwire-csrf': 'A'.repeat(43) }, 403],
        [{ origin: 'http://127.0.0.1:9999' }, 403],
        [{ origin: 'null' }, 403],
        [{ 'sec-fetch-site': 'same-site' }, 403],
        [{ 'sec-fetch-site': 'cross-site' }, 403],
        [{ cookie: `${COOKIE}=forged` }, 401],
        [{ cookie: '' }, 401],
      ];
      for (const [headers, status] of cases) {
        const res = await action(rig, s, { op: 'toggle', selector: `id:${DESK}` }, headers);
        expect(res.statusCode, JSON.stringify(headers)).to.equal(status);
        expect(res.json().code).to.equal(status === 401 ? 'SESSION_REQUIRED' : 'FORBIDDEN');
        // No token was sent: the answer says what is missing (not "Bad access token") and how to get it here.
        if (status === 401) expect(res.json().error, JSON.stringify(headers)).to.equal('No dashboard session: open the dashboard page of this server to start one');
      }
      // A form post (no preflight) cannot send JSON with the token either.
      const form = await action(rig, s, 'op=toggle', { 'content-type': 'text/plain' });
      expect(form.statusCode).to.be.oneOf([400, 415]);
      expect(rig.fleet.light(DESK).state.power).to.equal(before);
    });

    it('keeps the v1 rule: a request with an Origin header and no token is refused, session cookie or not', async () => {
      const s = await openPage(rig);
      const res = await rig.call({ method: 'POST', url: '/v1/lights/all/toggle', headers: { origin: SELF, cookie: s.cookie, 'x-lightwire-csrf': s.csrf } });
      expect(res.statusCode).to.equal(403);
    });

    it('sends the assets gzipped only to a client that takes gzip (q=0 refuses it)', async () => {
      const cases: [string | undefined, boolean][] = [
        [undefined, false],
        ['gzip', true],
        ['gzip, deflate, br', true],
        ['GZIP;Q=0.5', true],
        ['*', true],
        ['identity', false],
        ['gzip;q=0, identity', false],
        ['gzip; q=0.000', false],
        ['br, *;q=0', false],
        ['gzip;q=0, *', false],
      ];
      for (const [accept, gzip] of cases) {
        const res = await rig.call({ method: 'GET', url: '/dashboard.js', headers: accept === undefined ? {} : { 'accept-encoding': accept } });
        expect(res.statusCode).to.equal(200);
        expect(res.headers['content-encoding'], String(accept)).to.equal(gzip ? 'gzip' : undefined);
        if (!gzip) expect(res.body, String(accept)).to.equal(DASHBOARD_JS);
      }
    });

    it('checks what the page asks: selectors, ops and values are named when wrong', async () => {
      const s = await openPage(rig);
      const bad: [unknown, string, string][] = [
        [{ op: 'toggle', selector: 'label:Desk' }, 'PARAMETER_INVALID', 'selector'],
        [{ op: 'toggle' }, 'PARAMETER_MISSING', 'selector'],
        [{ op: 'explode', selector: 'all' }, 'PARAMETER_INVALID', 'op'],
        [{ op: 'state', selector: 'all', brightness: 2 }, 'PARAMETER_INVALID', 'brightness'],
        [{ op: 'state', selector: 'all', kelvin: 100 }, 'PARAMETER_INVALID', 'kelvin'],
        [{ op: 'state', selector: 'all' }, 'PARAMETER_INVALID', 'state'],
        [{ op: 'effect', selector: 'all', effect: 'disco' }, 'PARAMETER_INVALID', 'effect'],
        [[1, 2], 'BODY_INVALID', ''],
      ];
      for (const [body, code, field] of bad) {
        const res = await action(rig, s, body);
        expect(res.statusCode, JSON.stringify(body)).to.be.oneOf([400, 422]);
        expect(res.json().code, JSON.stringify(body)).to.equal(code);
        expect(res.json().error).to.include(field);
      }
    });

    it('answers a body it cannot parse in its own coded shape, with its headers', async () => {
      const s = await openPage(rig);
      const headers = { cookie: s.cookie, 'x-lightwire-csrf': s.csrf, 'content-type': 'application/json', origin: SELF, 'sec-fetch-site': 'same-origin' };
      for (const [payload, code, text] of [
        ['{"op": "toggle", ', 'BODY_INVALID', 'not valid JSON'],
        ['{"__proto__": {"x": 1}, "op": "toggle", "selector": "all"}', 'BODY_INVALID', ''],
        [`{"op": "toggle", "selector": "${'x'.repeat(100_000)}"}`, 'BODY_TOO_LARGE', 'larger than'],
      ] as const) {
        const res = await rig.call({ method: 'POST', url: '/api/action', headers, payload });
        expect(res.statusCode, payload.slice(0, 40)).to.be.oneOf([400, 413]);
        expect(res.json(), payload.slice(0, 40)).to.have.keys('error', 'code');
        expect(res.json().code).to.equal(code);
        expect(res.json().error).to.include(text);
        expect(res.headers['x-content-type-options']).to.equal('nosniff');
      }
    });

    it('names the limit a too-large sign-in form passed (the form\'s, not an action\'s)', async () => {
      const res = await rig.call({ method: 'POST', url: '/session', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `token=${'x'.repeat(5000)}` });
      expect(res.statusCode).to.equal(413);
      expect(res.json()).to.deep.equal({ error: 'the request body is larger than 4096 bytes', code: 'BODY_TOO_LARGE' });
      // Routes that do not exist, and bad queries, get coded answers too.
      const unknown = await rig.call({ method: 'GET', url: '/api/nope' });
      expect(unknown.statusCode).to.equal(404);
      expect(unknown.json().code).to.equal('ROUTE_NOT_FOUND');
      for (const q of ['abc', '-1', '1.5', '', '51', '1&probeCount=2']) {
        const bad = await rig.call({ method: 'GET', url: `/api/doctor?probeCount=${q}` });
        expect(bad.statusCode, q).to.equal(422);
        expect(bad.json().code, q).to.equal('PARAMETER_INVALID');
      }
    });

    it('sets brightness and kelvin, starts and stops an effect, each with per-light results', async () => {
      const s = await openPage(rig);
      const b = await action(rig, s, { op: 'state', selector: `id:${DESK}`, brightness: 0.3, durationS: 0 });
      expect(b.json().results[0].status).to.equal('ok');
      expect(rig.fleet.light(DESK).state.color.brightness).to.be.closeTo(0.3, 0.01);
      const k = await action(rig, s, { op: 'state', selector: `id:${DESK}`, kelvin: 6500, saturation: 0, durationS: 0 });
      expect(k.json().results[0].status).to.equal('ok');
      expect(rig.fleet.light(DESK).state.color.kelvin).to.equal(6500);
      const fx = await action(rig, s, { op: 'effect', selector: `id:${DESK}`, effect: 'pulse', color: 'blue' });
      expect(fx.json().results.map((r: { status: string }) => r.status)).to.deep.equal(['ok']);
      const off = await action(rig, s, { op: 'effectsOff', selector: `id:${DESK}` });
      expect(off.statusCode).to.equal(200);
      expect(off.json().results[0].id).to.equal(DESK);
    });
  });

  describe('server with tokens', () => {
    let rig: ApiRig;
    before(async () => {
      rig = await apiRig(contractFleet(), { tokens: ['CTRL', 'READER:read'], dashboard: { liveRefresh: false } });
    });
    after(async () => rig.close());

    it('the page without a session is the sign-in form, and starts no session', async () => {
      const res = await rig.call({ method: 'GET', url: '/', headers: { 'sec-fetch-site': 'none' } });
      expect(res.statusCode).to.equal(200);
      expect(res.headers['set-cookie']).to.equal(undefined);
      expect(res.body).to.include('name="token"').and.not.include('lightwire-csrf');
      const act = await rig.call({ method: 'POST', url: '/api/action', headers: { 'content-type': 'application/json' }, payload: '{"op":"toggle","selector":"all"}' });
      expect(act.statusCode).to.equal(401);
      expect(act.json().error).to.match(/^No dashboard session: sign in on the dashboard page with an access token/);
      // A bad token is still called one.
      const bad = await rig.call({ method: 'GET', url: '/api/doctor', headers: { authorization: 'Bearer nope' } });
      expect(bad.statusCode).to.equal(401);
      expect(bad.json().error).to.match(/^Bad access token/);
    });

    it('a one-time link starts a session once; the second use is refused', async () => {
      const handle = dashboardOf(rig.app as FastifyInstance)!;
      const link = new URL(handle.link('http://localhost'));
      expect(link.pathname).to.equal('/session');
      const first = await rig.call({ method: 'GET', url: `${link.pathname}${link.search}` });
      expect(first.statusCode).to.equal(303);
      expect(first.headers.location).to.equal('/');
      expect(String(first.headers['set-cookie'])).to.match(/HttpOnly; SameSite=Strict/);
      const again = await rig.call({ method: 'GET', url: `${link.pathname}${link.search}` });
      expect(again.statusCode).to.equal(401);
      expect(again.headers['set-cookie']).to.equal(undefined);
      const cookie = String(first.headers['set-cookie']).split(';')[0]!;
      const page = await rig.call({ method: 'GET', url: '/', headers: { cookie } });
      expect(page.body).to.include('lightwire-csrf');
    });

    it('signs in with a token from the form; a wrong token or another origin is refused; a read token cannot drive', async () => {
      const wrong = await rig.call({ method: 'POST', url: '/session', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: SELF }, payload: 'token=nope' });
      expect(wrong.statusCode).to.equal(401);
      expect(wrong.headers['set-cookie']).to.equal(undefined);
      const cross = await rig.call({ method: 'POST', url: '/session', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://127.0.0.1:1' }, payload: 'token=CTRL' });
      expect(cross.statusCode).to.equal(403);
      const reader = await rig.call({ method: 'POST', url: '/session', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: SELF }, payload: 'token=READER' });
      expect(reader.statusCode).to.equal(303);
      const cookie = String(reader.headers['set-cookie']).split(';')[0]!;
      const page = await rig.call({ method: 'GET', url: '/', headers: { cookie } });
      const csrf = /content="([\w-]{43})"/.exec(page.body)![1]!;
      // The page knows, and disables its controls.
      expect(page.body).to.include('<meta name="lightwire-scopes" content="read">');
      const res = await action(rig, { cookie, csrf }, { op: 'toggle', selector: `id:${DESK}` });
      expect(res.statusCode).to.equal(403);
      expect(res.json().error).to.include('control');
    });
  });

  describe('the event stream (real sockets)', () => {
    let rig: ApiRig;
    let base: string;
    before(async () => {
      rig = await apiRig(contractFleet(), { dashboard: { liveRefresh: false } });
      // As serve does: a started service announces the lights its client knows, and reports their changes.
      await rig.service.start();
      await rig.app.listen({ host: '127.0.0.1', port: 0 });
      base = `http://127.0.0.1:${(rig.app.server.address() as { port: number }).port}`;
    });
    after(async () => {
      await rig.service.stop();
      await rig.close();
    });

    function get(path: string, headers: Record<string, string>): Promise<IncomingMessage> {
      return new Promise((resolve, reject) => {
        const req = httpRequest(`${base}${path}`, { headers }, resolve);
        req.on('error', reject);
        req.end();
      });
    }

    it('refuses a stream without a session', async () => {
      const none = await get('/events', {});
      expect(none.statusCode).to.equal(401);
      none.resume();
    });

    it('sends a snapshot of every light, then a change made through the service within a second', async () => {
      const port = (rig.app.server.address() as { port: number }).port;
      const page = await get('/', { 'sec-fetch-site': 'none' });
      const cookie = String(page.headers['set-cookie']).split(';')[0]!;
      page.resume();
      const cross = await get('/events', { cookie, origin: 'http://127.0.0.1:1' });
      expect(cross.statusCode).to.equal(403);
      cross.resume();
      const res = await get('/events', { cookie, host: `127.0.0.1:${port}` });
      expect(res.statusCode).to.equal(200);
      expect(res.headers['content-type']).to.match(/^text\/event-stream/);
      let text = '';
      const events: { event: string; data: any }[] = [];
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        let end;
        while ((end = text.indexOf('\n\n')) >= 0) {
          const block = text.slice(0, end);
          text = text.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data) events.push({ event, data: JSON.parse(data) });
        }
      });
      const waitFor = (pred: () => boolean, timeoutMs: number): Promise<unknown> =>
        until(pred, { timeoutMs, what: () => `the event; events: ${events.map((e) => e.event).join(',')}` });
      await waitFor(() => events.some((e) => e.event === 'snapshot'), 2000);
      const snapshot = events.find((e) => e.event === 'snapshot')!.data;
      expect(snapshot.lights.map((l: { serial: string }) => l.serial).sort()).to.deep.equal(contractFleet().lights.map((l) => l.serial).sort());
      const desk = snapshot.lights.find((l: { serial: string }) => l.serial === DESK);
      expect(desk).to.include({ label: 'Desk', online: true, power: 'on', product: 'LIFX Color 800lm' });
      expect(desk.group.name).to.equal('Office');
      expect(desk.location.name).to.equal('Home');
      expect(desk.signal).to.be.a('string');
      const started = Date.now();
      await rig.service.setState(`id:${DESK}`, { power: 'off', durationS: 0 });
      await waitFor(() => events.some((e) => e.event === 'lights' && e.data.lights.some((l: { serial: string; power: string }) => l.serial === DESK && l.power === 'off')), 1000);
      expect(Date.now() - started).to.be.below(1000);
      res.destroy();
      // The hub lets go of the service once no page listens.
      const hub = dashboardOf(rig.app as FastifyInstance)!.hub;
      await waitFor(() => hub.size === 0, 1000);
    });

    it('closing the server ends open streams (close does not hang)', async () => {
      const page = await get('/', {});
      const cookie = String(page.headers['set-cookie']).split(';')[0]!;
      page.resume();
      const res = await get('/events', { cookie });
      expect(res.statusCode).to.equal(200);
      res.resume();
      const ended = new Promise<void>((resolve) => res.on('end', () => resolve()).on('close', () => resolve()));
      const closed = rig.app.close();
      await Promise.race([Promise.all([closed, ended]), new Promise((_r, reject) => setTimeout(() => reject(new Error('close hung')), 3000))]);
    });
  });

  describe('the event stream and its session (real sockets, a clock of our own)', () => {
    let rig: ApiRig;
    let base: string;
    let clock = Date.now();
    before(async () => {
      // With a LIFX Switch: a device the service knows (it has relays) that is no light.
      const fleet = contractFleet();
      rig = await apiRig({ lights: [...fleet.lights, { serial: SWITCH, product: 70, label: 'Switch', group: { label: 'Office' }, location: { label: 'Home' } }] }, { dashboard: { liveRefresh: false }, now: () => clock });
      await rig.service.start();
      await rig.app.listen({ host: '127.0.0.1', port: 0 });
      base = `http://127.0.0.1:${(rig.app.server.address() as { port: number }).port}`;
    });
    after(async () => {
      await rig.service.stop();
      await rig.close();
    });

    /** A page's session (GET / as a browser) and its open event stream, with the event names as they come. */
    async function watch(): Promise<SignedIn & { events: string[]; snapshot: Promise<{ lights: { serial: string }[] }>; ended: Promise<void>; close(): void }> {
      const page = await fetch(`${base}/`, { headers: { 'sec-fetch-site': 'none' } });
      const cookie = page.headers.get('set-cookie')!.split(';')[0]!;
      const csrf = /name="lightwire-csrf" content="([^"]+)"/.exec(await page.text())![1]!;
      const res = await new Promise<IncomingMessage>((resolve, reject) => httpRequest(`${base}/events`, { headers: { cookie } }, resolve).on('error', reject).end());
      expect(res.statusCode).to.equal(200);
      const events: string[] = [];
      let text = '';
      res.setEncoding('utf8');
      const snapshot = new Promise<{ lights: { serial: string }[] }>((resolve) => {
        res.on('data', (chunk: string) => {
          text += chunk;
          for (const m of chunk.matchAll(/^event: (\w+)$/gm)) events.push(m[1]!);
          const data = /^event: snapshot\ndata: (.*)$/m.exec(text)?.[1];
          if (data !== undefined) resolve(JSON.parse(data));
        });
      });
      const ended = new Promise<void>((resolve) => res.on('end', () => resolve()).on('close', () => resolve()));
      return { cookie, csrf, events, snapshot, ended, close: () => res.destroy() };
    }

    const change = async (): Promise<void> => {
      await rig.service.toggle(`id:${DESK}`, { durationS: 0 });
    };

    it('sends lights only, as /v1 lists them: not a Switch', async () => {
      expect(rig.service.views().map((v) => v.serial)).to.include(SWITCH);
      const w = await watch();
      try {
        const snapshot = await w.snapshot;
        expect(snapshot.lights.map((l) => l.serial).sort()).to.deep.equal(contractFleet().lights.map((l) => l.serial).sort());
      } finally {
        w.close();
      }
    });

    it('a page that only watches keeps its session past the idle limit: the open stream renews it', async () => {
      const w = await watch();
      try {
        // Seven hours pass, twice, and the page only watches: what the stream sends in between renews the session.
        for (let i = 0; i < 2; i++) {
          clock += 7 * 60 * 60 * 1000;
          const before = w.events.length;
          await change();
          await until(() => w.events.slice(before).includes('lights'), { timeoutMs: 3000, what: 'a lights event' });
        }
        const res = await fetch(`${base}/api/action`, {
          method: 'POST',
          headers: { cookie: w.cookie, 'x-lightwire-csrf': w.csrf, 'content-type': 'application/json' },
          body: JSON.stringify({ op: 'toggle', selector: `id:${DESK}` }),
        });
        expect(res.status, await res.clone().text()).to.equal(200);
      } finally {
        w.close();
      }
    });

    it('a session that ends (sign-out) or expires ends its stream: nothing more is sent on it', async () => {
      const signedOut = await watch();
      const idle = await watch();
      const end = await fetch(`${base}/session/end`, { method: 'POST', headers: { cookie: signedOut.cookie }, redirect: 'manual' });
      expect(end.status).to.equal(303);
      // The other session's 12 h pass without its stream sending anything (no heartbeat within this test).
      const sent = { signedOut: signedOut.events.length, idle: idle.events.length };
      clock += 13 * 60 * 60 * 1000;
      await change();
      const bothEnded = Promise.all([signedOut.ended, idle.ended]);
      await Promise.race([bothEnded, new Promise((_r, reject) => setTimeout(() => reject(new Error('the streams stayed open')), 3000))]);
      expect(signedOut.events.length).to.equal(sent.signedOut);
      expect(idle.events.length).to.equal(sent.idle);
    });
  });

  describe('the page itself', () => {
    it('weighs under 100 KB (HTML, script and stylesheet, uncompressed)', () => {
      const bytes = dashboardAssetBytes();
      const html = Buffer.byteLength(dashboardPage('x'.repeat(43)));
      const total = html + bytes.js + bytes.css;
      console.log(`      page weight: ${total} bytes (html ${html}, js ${bytes.js}, css ${bytes.css}); gzip js+css ${bytes.jsGzip + bytes.cssGzip}`);
      expect(total).to.be.below(100 * 1024);
    });

    it('its script parses as a classic script and is free of template-literal characters', () => {
      expect(() => new vm.Script(DASHBOARD_JS)).not.to.throw();
      expect(DASHBOARD_JS).not.to.include('`');
    });

    it('session secrets: one-time keys work once, ids are compared by digest, CSRF in constant time', () => {
      let now = 1000;
      const store = new SessionStore(() => now);
      const key = store.mintKey();
      expect(store.redeemKey(key)).to.equal(true);
      expect(store.redeemKey(key)).to.equal(false);
      const late = store.mintKey();
      now += 25 * 60 * 60 * 1000;
      expect(store.redeemKey(late)).to.equal(false);
      const { id, session } = store.create(['read']);
      expect(store.get(id)).to.equal(session);
      expect(store.get(`${id}x`)).to.equal(undefined);
      now += 13 * 60 * 60 * 1000;
      expect(store.get(id)).to.equal(undefined);
      expect(sameSecret('abc', 'abc')).to.equal(true);
      expect(sameSecret('abc', 'abd')).to.equal(false);
      expect(sameSecret('abc', 'abcd')).to.equal(false);
    });

    it('parseAction takes only what the page sends', () => {
      expect(parseAction({ op: 'scene', scene: '2b7b9b1e-0000-4000-8000-000000000001' })).to.deep.equal({ op: 'scene', scene: '2b7b9b1e-0000-4000-8000-000000000001' });
      expect(parseAction({ op: 'power', selector: 'group_id:' + '0'.repeat(32), power: 'off' })).to.include({ op: 'power', power: 'off' });
      try {
        parseAction({ op: 'power', selector: 'all', power: 'maybe' });
        expect.fail('accepted power maybe');
      } catch (err) {
        expect(isLightwireError(err, 'PARAMETER_INVALID')).to.equal(true);
      }
    });
  });
});

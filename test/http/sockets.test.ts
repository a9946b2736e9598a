import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { startServer, type RunningServer } from '../../core/http/server.js';
import { defaultFleet } from '../../core/simulator/default-fleet.js';
import { serviceRig, type ServiceRig } from '../helpers/service-rig.js';

type Body = Record<string, any>;

const FIXTURES = path.join(__dirname, 'fixtures');
const CERT = readFileSync(path.join(FIXTURES, 'test-cert.pem'));
const KEY = readFileSync(path.join(FIXTURES, 'test-key.pem'));

/** GET over TLS trusting only the test certificate. */
function httpsGet(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.get(url, { ca: CERT, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
  });
}

describe('HTTP API v1 over real sockets (127.0.0.1, virtual lights)', function () {
  this.timeout(30_000);
  let rig: ServiceRig;
  let server: RunningServer;

  before(async () => {
    rig = await serviceRig(defaultFleet(4), { deadlineMs: 800 });
  });
  after(() => rig.close());
  afterEach(async () => {
    await server?.close();
    for (const light of rig.fleet.lights) light.setFaults({ unresponsive: false });
  });

  it('reports timed_out for a light that stopped answering and ok for the others, in one 207', async () => {
    server = await startServer({ service: rig.service, port: 0 });
    expect(server.url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    rig.fleet.light('d073d5000002').setFaults({ unresponsive: true });
    const started = Date.now();
    const res = await fetch(`${server.url}/lights/all/state`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ brightness: 0.4, duration: 0 }),
    });
    expect(res.status).to.equal(207);
    const body = (await res.json()) as Body;
    const status = Object.fromEntries((body.results as Body[]).map((r) => [r.id, r.status]));
    expect(status).to.deep.equal({ d073d5000001: 'ok', d073d5000002: 'timed_out', d073d5000003: 'ok', d073d5000004: 'ok' });
    expect(Date.now() - started).to.be.below(5000);
    expect(res.headers.get('x-ratelimit-remaining')).to.match(/^\d+$/);
  });

  it('answers a form body, and fast mode with 202 and an empty body, over the wire', async () => {
    server = await startServer({ service: rig.service, port: 0 });
    const form = await fetch(`${server.url}/lights/label:Color%201/state`, { method: 'PUT', body: new URLSearchParams({ power: 'on', brightness: '0.9', duration: '0' }) });
    expect(form.status).to.equal(207);
    expect(await form.json()).to.deep.equal({ results: [{ id: 'd073d5000001', label: 'Color 1', status: 'ok' }] });
    expect(rig.fleet.light('d073d5000001').state.color.brightness).to.be.closeTo(0.9, 0.001);
    const fast = await fetch(`${server.url}/lights/all/state`, { method: 'PUT', body: new URLSearchParams({ power: 'on', fast: 'true' }) });
    expect(fast.status).to.equal(202);
    expect(await fast.text()).to.equal('');
  });

  it('serves HTTPS with the configured certificate and answers 426 on the plain port', async () => {
    server = await startServer({ service: rig.service, port: 0, tls: { cert: CERT, key: KEY }, httpPort: 0, tokens: ['s3cret'] });
    expect(server.url).to.match(/^https:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(server.plainUrl).to.match(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const secure = await httpsGet(`${server.url}/lights/all`, { authorization: 'Bearer s3cret' });
    expect(secure.status).to.equal(200);
    expect((JSON.parse(secure.body) as unknown[]).length).to.equal(4);
    const plain = await fetch(`${server.plainUrl!}/lights/all`, { headers: { authorization: 'Bearer s3cret' } });
    expect(plain.status).to.equal(426);
    expect(await plain.json()).to.deep.equal({ error: `HTTPS is required; repeat the request at ${server.url}`, errors: [], code: 'HTTPS_REQUIRED' });
    expect(plain.headers.get('x-ratelimit-limit')).to.match(/^\d+$/);
  });

  it('closes cleanly: the port stops answering', async () => {
    server = await startServer({ service: rig.service, port: 0 });
    const url = server.url;
    expect((await fetch(`${url}/lights/all`)).status).to.equal(200);
    await server.close();
    const err = await fetch(`${url}/lights/all`).then(() => null, (e: unknown) => e);
    expect(err).to.be.instanceOf(Error);
  });
});

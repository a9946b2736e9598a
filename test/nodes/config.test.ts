// lightwire-config in a Node-RED runtime: one service shared by its users, kept over a partial deploy, released
// on every full one (50 redeploys leave no socket, timer or listener), health in the users' status, virtual
// lights, the embedded HTTP endpoint, and the editor's selector picker.

import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import type { LightService } from '../../core/index.js';
import type { Fleet } from '../../core/simulator/index.js';
import { isConfigNode } from '../../nodes/config-node.js';
import { NODES, configFor, helper, inject, nextMessage, onTab, startFleet, statuses, type FlowNode } from './rig.js';
import { until } from '../helpers/wait.js';

function connectionOf(id = 'cfg') {
  const node: unknown = helper.getNode(id);
  if (!isConfigNode(node)) throw new Error(`${id} is not a running lightwire-config node`);
  return node.connection;
}

/** Handles that would keep a process alive or hold a port: sockets, servers, timers. */
function handles(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of process.getActiveResourcesInfo()) {
    if (r === 'TTYWrap' || r === 'FSReqCallback' || r === 'FSReqPromise' || r === 'PipeWrap') continue;
    counts[r] = (counts[r] ?? 0) + 1;
  }
  return counts;
}

async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
}

const EVENTS = ['added', 'changed', 'offline', 'online', 'error'] as const;
function listeners(service: LightService): number[] {
  return EVENTS.map((e) => service.listenerCount(e));
}

describe('lightwire-config', function () {
  this.timeout(60_000);
  let fleet: Fleet;

  before(async () => {
    fleet = await startFleet();
  });

  after(async () => {
    await fleet.stop();
  });

  afterEach(async () => {
    await helper.unload();
  });

  function flow(config: Record<string, unknown> = {}, extra: FlowNode[] = []): FlowNode[] {
    return onTab(
      configFor(fleet, config),
      { id: 'set', type: 'lightwire-set-state', config: 'cfg', selector: 'all', wires: [['out'], []] },
      { id: 'info', type: 'lightwire-get-info', config: 'cfg', selector: 'all', wires: [['out']] },
      { id: 'disc', type: 'lightwire-discover', config: 'cfg', selector: '', reportAdded: false, wires: [['events']] },
      { id: 'out', type: 'helper' },
      { id: 'events', type: 'helper' },
      ...extra,
    );
  }

  it('shares one service between its users and shows its health in their status', async () => {
    await helper.load(NODES, flow());
    const connection = connectionOf();
    expect(connection.userCount).to.equal(3);
    const seen = statuses('info');
    await until(() => seen.some((s) => s.text === '4 lights'), { timeoutMs: 3000, what: 'status "4 lights"' });
    const out = nextMessage('out');
    inject('info', {});
    expect((await out).payload).to.have.length(4);
    expect(connection.peek()).to.not.equal(null);
  });

  it('keeps its service over a deploy of modified nodes, and replaces it on a full deploy', async () => {
    const f = flow();
    await helper.load(NODES, f);
    const connection = connectionOf();
    const service = await connection.service();
    await helper.setFlows(f.map((n) => (n.id === 'set' ? { ...n, name: 'renamed' } : n)), 'nodes');
    expect(connectionOf()).to.equal(connection);
    expect(connection.peek()).to.equal(service);
    expect(service.started).to.equal(true);
    await helper.setFlows(f.map((n) => (n.id === 'cfg' ? { ...n, name: 'renamed' } : n)), 'full');
    await settle();
    expect(service.started).to.equal(false);
    expect(connectionOf()).to.not.equal(connection);
  });

  it('leaves no socket, timer or listener after 50 redeploys', async () => {
    await settle();
    const before = handles();
    const f = flow();
    await helper.load(NODES, f);
    const service = await connectionOf().service();
    const listenersBefore = listeners(service);
    // 25 deploys of modified nodes: the service stays; its users come and go.
    for (let i = 0; i < 25; i++) {
      await helper.setFlows(f.map((n) => (n.type.startsWith('lightwire-') && n.type !== 'lightwire-config' ? { ...n, name: `round ${i}` } : n)), 'nodes');
      const out = nextMessage('out');
      inject('set', { payload: i % 2 === 0 ? 'on' : 'off' });
      expect(((await out).payload as unknown[]).length).to.equal(4);
    }
    expect(connectionOf().peek()).to.equal(service);
    expect(listeners(service)).to.deep.equal(listenersBefore);
    // 25 full deploys: a new service each time, the old one released.
    for (let i = 0; i < 25; i++) {
      await helper.setFlows(f.map((n) => (n.id === 'cfg' ? { ...n, name: `round ${i}` } : n)), 'full');
      const out = nextMessage('out');
      inject('set', { payload: i % 2 === 0 ? 'on' : 'off' });
      expect(((await out).payload as unknown[]).length).to.equal(4);
    }
    await helper.unload();
    await settle();
    expect(handles()).to.deep.equal(before);
  });

  it('runs virtual lights on loopback when asked, and releases them on close', async () => {
    await settle();
    const before = handles();
    await helper.load(NODES, onTab(
      { id: 'vcfg', type: 'lightwire-config', virtual: true, virtualLights: 3, refreshS: 0, durationS: 0 },
      { id: 'set', type: 'lightwire-set-state', config: 'vcfg', selector: 'all', wires: [['out'], []] },
      { id: 'info', type: 'lightwire-get-info', config: 'vcfg', selector: 'all', wires: [['out']] },
      { id: 'out', type: 'helper' },
    ));
    let out = nextMessage('out');
    inject('set', { payload: { power: 'on', color: 'green' } });
    const results = (await out).payload as Array<{ status: string }>;
    // The virtual lights' discovery listener is bound to the loopback broadcast address, not to 0.0.0.0.
    expect(readFileSync('/proc/net/udp', 'utf8'), 'a UDP socket bound to 127.255.255.255').to.match(/^\s*\d+: FFFFFF7F:/m);
    expect(results.map((r) => r.status)).to.deep.equal(['ok', 'ok', 'ok']);
    out = nextMessage('out');
    inject('info', { fresh: true });
    const lights = (await out).payload as Array<{ power: string; color: { hue: number }; product: { capabilities: { has_color: boolean } } }>;
    expect(lights.map((l) => l.power)).to.deep.equal(['on', 'on', 'on']);
    const colour = lights.filter((l) => l.product.capabilities.has_color);
    expect(colour).to.have.length(2); // the default fleet's second light is white-to-warm
    for (const l of colour) expect(l.color.hue).to.be.closeTo(120, 1);
    await helper.unload();
    await settle();
    expect(handles()).to.deep.equal(before);
  });

  it('serves the HTTP API for the same lights when asked, with its tokens', async () => {
    await helper.load(NODES, flow({ http: true, httpHost: '127.0.0.1', httpPort: 0 }), { cfg: { tokens: 'sekret' } });
    const connection = connectionOf();
    await connection.service();
    const url = connection.health().httpUrl;
    expect(url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const denied = await fetch(`${url}/lights/all`);
    expect(denied.status).to.equal(401);
    const answer = await fetch(`${url}/lights/all`, { headers: { authorization: 'Bearer sekret' } });
    expect(answer.status).to.equal(200);
    expect(((await answer.json()) as unknown[]).length).to.equal(4);
    // The dashboard comes with it: its page at /, behind the same tokens (the sign-in form until a session).
    const page = await fetch(url!.replace(/\/v1$/, '/'));
    expect(page.status).to.equal(200);
    expect(await page.text()).to.match(/<html/i);
    await helper.unload();
    await settle();
    await fetch(`${url}/lights/all`).then(
      () => expect.fail('the endpoint still answers after the flows stopped'),
      (err: Error) => expect(String((err.cause as Error | undefined)?.message ?? err.message)).to.match(/ECONNREFUSED/),
    );
  });

  it('refuses to serve HTTP on a non-loopback address without a token, and the lights still work', async () => {
    await helper.load(NODES, flow({ http: true, httpHost: '0.0.0.0', httpPort: 0 }));
    const connection = connectionOf();
    await connection.service();
    expect(connection.health().httpUrl).to.equal(null);
    expect((connection.health().httpError as { code?: string } | null)?.code).to.equal('SERVE_UNSAFE_BIND');
    const out = nextMessage('out');
    inject('info', {});
    expect((await out).payload).to.have.length(4);
  });

  it('passes a discovery option the core refuses to every user as OPTIONS_INVALID', async () => {
    await helper.load(NODES, flow({ broadcast: 'not-an-address' }, [{ id: 'catcher', type: 'catch', scope: null, wires: [['caught']] }, { id: 'caught', type: 'helper' }]));
    const caught = nextMessage('caught');
    inject('set', { payload: 'on' });
    const error = (await caught).error as { code: string; message: string };
    expect(error.code).to.equal('OPTIONS_INVALID');
    expect(error.message).to.contain('broadcastAddresses');
  });

  describe('the selector picker (admin endpoint)', () => {
    it('lists the current lights, groups and locations with their selectors', async () => {
      await helper.load(NODES, flow());
      await connectionOf().service();
      const res = await helper.request().get('/lightwire-config/cfg/selectors');
      expect(res.status).to.equal(200);
      const body = res.body as { lights: Array<{ selector: string; label: string; online: boolean }>; groups: Array<{ selector: string; lights: number }>; locations: Array<{ selector: string }> };
      expect(body.lights.map((l) => l.selector)).to.deep.equal(['label:Bedside', 'label:Kitchen ceiling', 'label:Kitchen table', 'label:TV strip']);
      expect(body.groups.map((g) => [g.selector, g.lights])).to.deep.equal([['group:Bedroom', 1], ['group:Kitchen', 2], ['group:Living Room', 1]]);
      expect(body.locations.map((g) => g.selector)).to.deep.equal(['location:Home']);
    });

    it('starts an idle config node to answer, and lets it go again', async () => {
      await helper.load(NODES, onTab(configFor(fleet)));
      expect(connectionOf().peek()).to.equal(null);
      const res = await helper.request().get('/lightwire-config/cfg/selectors');
      expect(res.status).to.equal(200);
      expect((res.body as { lights: unknown[] }).lights).to.have.length(4);
      expect(connectionOf().userCount).to.equal(0);
    });

    it('answers 404 for a config node that is not deployed', async () => {
      await helper.load(NODES, flow());
      const res = await helper.request().get('/lightwire-config/nope/selectors');
      expect(res.status).to.equal(404);
      expect((res.body as { code: string }).code).to.equal('CONFIG_NOT_DEPLOYED');
    });
  });
});

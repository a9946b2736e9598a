// lightwire-discover: a message when a light is added, changes (and what changed), goes offline or comes back,
// whoever changed it; the list on input; a selector filter.

import { expect } from 'chai';
import type { Fleet } from '../../core/simulator/index.js';
import { NODES, collect, configFor, helper, inject, nextMessage, noMessage, onTab, startFleet, type FlowNode } from './rig.js';
import { turns, until } from '../helpers/wait.js';
import type { LightwireConfigNode } from '../../nodes/config-node.js';

type Msg = Record<string, unknown> & { topic: string; serial?: string; changes?: string[]; payload: unknown };

const ALL = ['d073d5000001', 'd073d5000002', 'd073d5000003', 'd073d5000004'];


describe('lightwire-discover', function () {
  this.timeout(20_000);
  let fleet: Fleet;

  beforeEach(async () => {
    fleet = await startFleet();
  });

  afterEach(async () => {
    await helper.unload();
    await fleet.stop();
  });

  function flow(extra: Record<string, unknown> = {}, config: Record<string, unknown> = {}): FlowNode[] {
    return onTab(
      configFor(fleet, config),
      { id: 'disc', type: 'lightwire-discover', config: 'cfg', selector: '', wires: [['events']], ...extra },
      { id: 'set', type: 'lightwire-set-state', config: 'cfg', selector: 'label:Bedside', wires: [['done'], []] },
      { id: 'events', type: 'helper' },
      { id: 'done', type: 'helper' },
    );
  }

  it('announces every light as it is found, in the List Lights shape', async () => {
    await helper.load(NODES, flow());
    const got = collect<Msg>('events');
    await until(() => got.length >= 4, { timeoutMs: 5000, what: 'four added events' });
    expect(got.every((m) => m.topic === 'added')).to.equal(true);
    expect(got.map((m) => m.serial).sort()).to.deep.equal(ALL);
    const record = got[0]!.payload as { id: string; label: string; connected: boolean };
    expect(record.id).to.equal(got[0]!.serial);
    expect(record.connected).to.equal(true);
  });

  it('reports a change made through a flow at once, naming what changed', async () => {
    await helper.load(NODES, flow());
    const got = collect<Msg>('events');
    await until(() => got.length >= 4, { timeoutMs: 5000, what: 'four added events' });
    const done = nextMessage('done');
    inject('set', { payload: { power: 'on', color: 'red' } });
    await done;
    await until(() => got.some((m) => m.topic === 'changed'), { timeoutMs: 2000, what: 'a changed event' });
    const changed = got.filter((m) => m.topic === 'changed');
    expect(changed.every((m) => m.serial === 'd073d5000003')).to.equal(true);
    expect(changed.flatMap((m) => m.changes ?? [])).to.include('power');
    expect((changed.at(-1)!.payload as { power: string }).power).to.equal('on');
  });

  it('reports a change made elsewhere (a wall switch, the vendor app) at the next refresh', async () => {
    await helper.load(NODES, flow({}, { refreshS: 0.2 }));
    const got = collect<Msg>('events');
    await until(() => got.length >= 4, { timeoutMs: 5000, what: 'four added events' });
    fleet.light('d073d5000002').setState({ power: 'off' });
    await until(() => got.some((m) => m.topic === 'changed' && m.serial === 'd073d5000002'), { timeoutMs: 3000, what: 'a changed event' });
    const change = got.find((m) => m.topic === 'changed' && m.serial === 'd073d5000002')!;
    expect(change.changes).to.include('power');
    expect((change.payload as { power: string }).power).to.equal('off');
  });

  it('reports a light going offline after missed reads, and coming back', async () => {
    // Short, but inside each light's pacing budget (20 messages a second; a strip's read is two messages): a
    // refresh every 0.1 s would fill the budget and time healthy lights out too.
    await helper.load(NODES, flow({}, { refreshS: 0.3, timeoutS: 0.3 }));
    const got = collect<Msg>('events');
    await until(() => got.length >= 4, { timeoutMs: 5000, what: 'four added events' });
    fleet.light('d073d5000001').setFaults({ offline: true });
    await until(() => got.some((m) => m.topic === 'offline'), { timeoutMs: 5000, what: 'an offline event' });
    const offline = got.find((m) => m.topic === 'offline')!;
    expect(offline.serial).to.equal('d073d5000001');
    expect((offline.payload as { connected: boolean }).connected).to.equal(false);
    fleet.light('d073d5000001').setFaults({ offline: false });
    await until(() => got.some((m) => m.topic === 'online'), { timeoutMs: 5000, what: 'an online event' });
    expect(got.find((m) => m.topic === 'online')!.serial).to.equal('d073d5000001');
  });

  it('reports only the lights its selector names, and only the events it is asked for', async () => {
    const readBefore = ALL.map((serial) => fleet.light(serial).receivedCount('GetColor'));
    await helper.load(NODES, flow({ selector: 'group:Kitchen', reportChanged: false }));
    const got = collect<Msg>('events');
    await until(() => got.length >= 2, { timeoutMs: 5000, what: 'two added events' });
    // Every light of the fleet has been read, so an added event for one outside the selector would be due now (and
    // the quiet window below would catch one that came later still).
    await until(() => ALL.every((serial, i) => fleet.light(serial).receivedCount('GetColor') > readBefore[i]!), { what: 'every light read' });
    expect(got.map((m) => m.serial).sort()).to.deep.equal(['d073d5000001', 'd073d5000002']);
    const silent = noMessage('events', 300);
    inject('set', { payload: 'on', selector: 'label:Kitchen table' });
    await silent;
  });

  it('lists the lights on input', async () => {
    await helper.load(NODES, flow({ reportAdded: false }));
    const out = nextMessage('events');
    inject('disc', { payload: 'list' });
    const msg = (await out) as Msg;
    expect(msg.topic).to.equal('list');
    expect((msg.payload as Array<{ id: string }>).map((l) => l.id).sort()).to.deep.equal(ALL);
    // msg.selector overrides the node's selector, as on every node.
    const one = nextMessage('events');
    inject('disc', { payload: 'list', selector: `id:${ALL[0]}` });
    expect(((await one) as Msg).payload).to.have.length(1);
    const none = nextMessage('events');
    inject('disc', { selector: 'label:Nowhere' });
    expect(((await none) as Msg).payload).to.deep.equal([]);
    // An empty or blank msg.selector is not given: the node's (here every light) stands.
    for (const selector of ['', ' ']) {
      const every = nextMessage('events');
      inject('disc', { selector });
      expect(((await every) as Msg).payload, JSON.stringify(selector)).to.have.length(4);
    }
  });

  it('on a deploy of modified nodes, sends nothing for a list still waiting for the lights, and finishes it at close', async () => {
    // No light answers on port 9: the list waits for the first discovery round (FIRST_ROUND_MS, 750 ms).
    const waiting = (name: string): FlowNode[] => [
      ...flow({ name, reportAdded: false }, { lanPort: 9 }),
      { id: 'completer', type: 'complete', z: 'f1', x: 1, y: 1, scope: ['disc'], uncaught: false, wires: [['completed']] },
      { id: 'completed', type: 'helper', z: 'f1', x: 1, y: 1 },
    ];
    await helper.load(NODES, waiting('first'));
    const got = collect<Msg>('events');
    const completed = collect<Msg>('completed');
    inject('disc', { topic: 'in flight' });
    const config = helper.getNode('cfg') as unknown as LightwireConfigNode;
    await until(() => config.connection.operationsInFlight === 1, { what: 'the list under way' });
    await helper.setFlows(waiting('second'), 'nodes');
    expect(completed.map((m) => m.topic), 'the message is finished at close').to.deep.equal(['in flight']);
    // The list ends once the first round is over (FIRST_ROUND_MS, 750 ms): what it would send, it has.
    await until(() => config.connection.operationsInFlight === 0, { what: 'the list in flight to end' });
    await turns();
    expect(got, 'events').to.deep.equal([]);
    expect(completed).to.have.length(1);
    // The node of the second deploy answers.
    const list = nextMessage('events');
    inject('disc', {});
    expect(((await list) as Msg).topic).to.equal('list');
  });

  it('announces lights the config node already knew when it starts in a partial deploy', async () => {
    const first = flow({ reportAdded: false });
    await helper.load(NODES, first);
    inject('disc', {});
    await nextMessage('events'); // the service has read every light
    const changed = first.map((n) => (n.id === 'disc' ? { ...n, reportAdded: true, name: 'again' } : n));
    await helper.setFlows(changed, 'nodes');
    const got = collect<Msg>('events');
    await until(() => got.length >= 4, { timeoutMs: 3000, what: 'four added events' });
    expect(got.map((m) => [m.topic, m.serial])).to.deep.equal(ALL.map((s) => ['added', s]));
  });

  it('refuses an event switch that is not a boolean (hand-edited flow)', async () => {
    await helper.load(NODES, [...flow({ reportOffline: 'sometimes' }), { id: 'catcher', type: 'catch', z: 'f1', x: 1, y: 1, scope: null, wires: [['caught']] }, { id: 'caught', type: 'helper', z: 'f1', x: 1, y: 1 }]);
    const caught = nextMessage('caught');
    inject('disc', {});
    expect(((await caught).error as { code: string }).code).to.equal('OPTIONS_INVALID');
  });
});

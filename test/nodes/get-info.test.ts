// lightwire-get-info: the List Lights records of the selected lights, from the cache or read fresh; bad
// selectors and properties end in done(err) with their code and the flow goes on.

import { expect } from 'chai';
import type { Fleet } from '../../core/simulator/index.js';
import { NODES, collect, configFor, helper, inject, nextMessage, noMessage, onTab, startFleet, statuses, type FlowNode } from './rig.js';
import { turns, until } from '../helpers/wait.js';
import type { LightwireConfigNode } from '../../nodes/config-node.js';

interface Record_ {
  id: string;
  label: string;
  connected: boolean;
  power: string;
  color: { hue: number; saturation: number; kelvin: number };
  brightness: number;
  group: { id: string; name: string };
  location: { id: string; name: string };
  product: { name: string; capabilities: Record<string, unknown> };
  zones?: { count: number };
  last_seen: string;
  seconds_since_seen: number;
}

describe('lightwire-get-info', function () {
  this.timeout(20_000);
  let fleet: Fleet;

  before(async () => {
    fleet = await startFleet();
    await helper.load(
      NODES,
      onTab(
        configFor(fleet),
        { id: 'info', type: 'lightwire-get-info', config: 'cfg', selector: 'all', read: 'cache', wires: [['out']] },
        { id: 'fresh', type: 'lightwire-get-info', config: 'cfg', selector: 'label:Bedside', read: 'fresh', wires: [['out']] },
        { id: 'badprop', type: 'lightwire-get-info', config: 'cfg', selector: 'all', read: 'sometimes', wires: [['out']] },
        { id: 'catcher', type: 'catch', scope: null, wires: [['caught']] },
        { id: 'out', type: 'helper' },
        { id: 'caught', type: 'helper' },
      ),
    );
  });

  after(async () => {
    await helper.unload();
    await fleet.stop();
  });

  async function ask(id: string, msg: Record<string, unknown>): Promise<Record_[]> {
    const out = nextMessage('out');
    inject(id, msg);
    return (await out).payload as Record_[];
  }

  it('lists every light in the HTTP List Lights shape', async () => {
    const lights = await ask('info', { payload: 'go' });
    expect(lights.map((l) => l.id).sort()).to.deep.equal(['d073d5000001', 'd073d5000002', 'd073d5000003', 'd073d5000004']);
    const strip = lights.find((l) => l.label === 'TV strip')!;
    expect(strip).to.include.keys('id', 'uuid', 'label', 'connected', 'power', 'color', 'brightness', 'effect', 'group', 'location', 'product', 'last_seen', 'seconds_since_seen');
    expect(strip.connected).to.equal(true);
    expect(strip.group.name).to.equal('Living Room');
    expect(strip.zones?.count).to.equal(16);
    expect(strip.product.capabilities).to.include({ has_multizone: true });
    expect(strip.color.hue).to.be.closeTo(240, 0.5);
  });

  it('lets msg.selector win over the node selector', async () => {
    const lights = await ask('info', { selector: 'group:Kitchen' });
    expect(lights.map((l) => l.label)).to.deep.equal(['Kitchen ceiling', 'Kitchen table']);
  });

  it('takes an empty or blank msg.selector as not given: the node selector stands', async () => {
    expect(await ask('info', { selector: '' })).to.have.length(4);
    expect((await ask('fresh', { selector: '  ' })).map((l) => l.label)).to.deep.equal(['Bedside']);
  });

  it('answers from the cache by default, and reads the lights with read "fresh" or msg.fresh', async () => {
    const bedside = fleet.light('d073d5000003');
    bedside.setState({ power: 'on' }); // behind the service's back; refresh is off in these tests
    expect((await ask('info', { selector: 'label:Bedside' }))[0]!.power).to.equal('off');
    expect((await ask('fresh', {}))[0]!.power).to.equal('on');
    bedside.setState({ power: 'off' });
    expect((await ask('info', { selector: 'label:Bedside', fresh: true }))[0]!.power).to.equal('off');
    bedside.setState({ power: 'on' });
    expect((await ask('fresh', { fresh: false }))[0]!.power).to.equal('off');
  });

  const bad: Array<{ name: string; id: string; msg: Record<string, unknown>; code: string }> = [
    { name: 'a selector that matches no light', id: 'info', msg: { selector: 'label:Attic' }, code: 'LIGHTS_NOT_FOUND' },
    { name: 'a malformed selector', id: 'info', msg: { selector: 'group_id:not-hex' }, code: 'SELECTOR_INVALID' },
    { name: 'a selector that is not a string', id: 'info', msg: { selector: ['all'] }, code: 'PARAMETER_INVALID' },
    { name: 'msg.fresh that is not a boolean', id: 'info', msg: { fresh: 'yes' }, code: 'PARAMETER_INVALID' },
    { name: 'a read mode that does not exist (hand-edited flow)', id: 'badprop', msg: {}, code: 'OPTIONS_INVALID' },
  ];
  for (const c of bad) {
    it(`reports ${c.name} as ${c.code} and the flow goes on`, async () => {
      const caught = nextMessage('caught');
      const silent = noMessage('out', 200);
      inject(c.id, c.msg);
      const error = (await caught).error as { code: string; source: { id: string } };
      expect(error.code).to.equal(c.code);
      expect(error.source.id).to.equal(c.id);
      await silent;
      expect(await ask('info', { selector: 'label:Bedside' })).to.have.length(1);
    });
  }
});

describe('lightwire-get-info: a deploy of modified nodes while a read is in flight', function () {
  this.timeout(20_000);
  let fleet: Fleet;

  before(async () => {
    fleet = await startFleet();
  });

  after(async () => {
    await helper.unload();
    await fleet.stop();
  });

  function flow(name: string): FlowNode[] {
    return onTab(
      configFor(fleet, { timeoutS: 1 }),
      { id: 'fresh', type: 'lightwire-get-info', config: 'cfg', selector: 'label:Bedside', read: 'fresh', name, wires: [['out']] },
      { id: 'catcher', type: 'catch', scope: null, wires: [['caught']] },
      { id: 'completer', type: 'complete', scope: ['fresh'], uncaught: false, wires: [['completed']] },
      { id: 'out', type: 'helper' },
      { id: 'caught', type: 'helper' },
      { id: 'completed', type: 'helper' },
    );
  }

  it('sends and shows nothing more for it once closed, and finishes its message at close', async () => {
    await helper.load(NODES, flow('first'));
    const first = nextMessage('out');
    const completedFirst = collect('completed');
    inject('fresh', {});
    expect((await first).payload).to.have.length(1);
    await until(() => completedFirst.length === 1, { what: "the first message's Complete" });
    const out = collect('out');
    const caught = collect('caught');
    const completed = collect('completed');
    const seen = statuses('fresh');
    fleet.light('d073d5000003').setFaults({ unresponsive: true });
    try {
      const heard = fleet.light('d073d5000003').receivedTotal;
      inject('fresh', { topic: 'in flight' });
      await until(() => fleet.light('d073d5000003').receivedTotal > heard, { what: 'the fresh read to reach the light' });
      const connection = (helper.getNode('cfg') as unknown as LightwireConfigNode).connection;
      await helper.setFlows(flow('second'), 'nodes');
      const shownAtClose = seen.length;
      expect(completed.map((m) => m.topic), 'the message is finished at close').to.deep.equal(['in flight']);
      // The fresh read gives up 1 s after it started: its answer used to reach the new deployment then.
      // The fresh read gives up (the config's timeoutS, 1 s) and its operation ends: what it would send or show, it has.
      await until(() => connection.operationsInFlight === 0, { what: 'the read in flight to end' });
      await turns();
      expect(out, 'output').to.deep.equal([]);
      expect(caught, 'Catch').to.deep.equal([]);
      expect(seen.slice(shownAtClose), 'status after close').to.deep.equal([]);
      expect(completed).to.have.length(1);
    } finally {
      fleet.light('d073d5000003').setFaults({ unresponsive: false });
    }
    const next = nextMessage('out');
    inject('fresh', {});
    expect((await next).payload).to.have.length(1);
  });
});

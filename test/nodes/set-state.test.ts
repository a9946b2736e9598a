// lightwire-set-state in a Node-RED runtime over virtual lights: every payload form changes the lights as asked
// (read back from the virtual lights themselves), results come out per light, and every bad message ends in
// done(err) with its code while the light stays untouched and the flow goes on.

import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Fleet } from '../../core/simulator/index.js';
import { NODES, collect, configFor, helper, inject, nextMessage, noMessage, onTab, smallFleet, startFleet, statuses, writesTo, type FlowNode } from './rig.js';
import { turns, until } from '../helpers/wait.js';
import type { LightwireConfigNode } from '../../nodes/config-node.js';

const BULB = 'd073d5000001'; // Kitchen ceiling, off
const TABLE = 'd073d5000002'; // Kitchen table, on
const STRIP = 'd073d5000004';
const CANDLE = 'd073d5000005';
const CLEAN = 'd073d5000006';

function fleetWithEffects() {
  const input = smallFleet();
  return {
    lights: [
      ...input.lights,
      { serial: CANDLE, product: 137, label: 'Candle', firmware: { major: 4, minor: 10 }, group: { label: 'Living Room' }, location: { label: 'Home' }, power: 'on' as const },
      { serial: CLEAN, product: 90, label: 'Clean', group: { label: 'Bedroom' }, location: { label: 'Home' }, power: 'on' as const },
    ],
  };
}

function flow(fleet: Fleet, node: Record<string, unknown> = {}, config: Record<string, unknown> = {}): FlowNode[] {
  return onTab(
    configFor(fleet, config),
    { id: 'set', type: 'lightwire-set-state', config: 'cfg', selector: `id:${BULB}`, wires: [['out'], ['failed']], ...node },
    { id: 'bare', type: 'lightwire-set-state', config: 'cfg', selector: '', wires: [['out'], ['failed']] },
    { id: 'catcher', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'out', type: 'helper' },
    { id: 'failed', type: 'helper' },
    { id: 'caught', type: 'helper' },
  );
}

type Results = Array<{ id: string; label: string; status: string; power?: string }>;

/** An object that refers to itself (JSON.stringify throws on it). */
function circular(): Record<string, unknown> {
  const o: Record<string, unknown> = { a: 1 };
  o.self = o;
  return o;
}

/** An object whose (not enumerable, so Node-RED can still copy it) property throws when read. */
function throwing(key: string): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  Object.defineProperty(o, key, { enumerable: false, get: () => { throw new Error('boom'); } });
  return o;
}

/** Sends a message and waits for output 1. */
async function send(msg: Record<string, unknown>): Promise<Record<string, unknown>> {
  const out = nextMessage('out');
  inject('set', msg);
  return out;
}

describe('lightwire-set-state', function () {
  this.timeout(20_000);
  let fleet: Fleet;
  let scenesDir: string;

  before(async () => {
    fleet = await startFleet(fleetWithEffects());
    scenesDir = await mkdtemp(path.join(os.tmpdir(), 'lightwire-scenes-'));
  });

  after(async () => {
    await fleet.stop();
    await rm(scenesDir, { recursive: true, force: true });
  });

  /** Unloads between describe blocks (and after tests that deploy their own flows). */
  async function unload(): Promise<void> {
    await helper.unload();
  }
  afterEach(async function () {
    if (this.currentTest?.parent?.title !== 'payload forms' && this.currentTest?.parent?.title !== 'bad messages') await unload();
  });

  async function load(node: Record<string, unknown> = {}, config: Record<string, unknown> = {}): Promise<void> {
    await helper.load(NODES, flow(fleet, node, config));
  }

  const state = (serial: string) => fleet.light(serial).state;

  describe('payload forms', () => {
    before(async () => {
      for (const serial of [BULB, TABLE]) fleet.light(serial).setState({ power: 'off', color: { hue: 0, saturation: 0, brightness: 0.5, kelvin: 3500 } });
    });

    beforeEach(async function () {
      // One runtime for the describe block, except for tests that deploy flows of their own.
      if (!helper.getNode('set')) await load();
    });

    it('applies an object (power, colour, brightness) and sends one ok result per light', async () => {
      const msg = await send({ payload: { power: 'on', color: 'blue', brightness: 0.25 } });
      expect(msg.payload).to.deep.equal([{ id: BULB, label: 'Kitchen ceiling', status: 'ok' }]);
      expect(msg.ok).to.equal(true);
      expect(state(BULB).power).to.equal('on');
      // LIFX's named blue is hue 250 (LIFX staff quote the server's colour table).
      expect(state(BULB).color.hue).to.be.closeTo(250, 0.5);
      expect(state(BULB).color.brightness).to.be.closeTo(0.25, 0.01);
    });

    it('takes a colour as numbers {hue, saturation, brightness, kelvin}', async () => {
      await send({ payload: { color: { hue: 120, saturation: 1, brightness: 0.6 } } });
      expect(state(BULB).color.hue).to.be.closeTo(120, 0.5);
      expect(state(BULB).color.saturation).to.be.closeTo(1, 0.01);
      expect(state(BULB).color.brightness).to.be.closeTo(0.6, 0.01);
    });

    it('understands "on", "off", true and false', async () => {
      await send({ payload: 'on' });
      expect(state(BULB).power).to.equal('on');
      await send({ payload: 'OFF' });
      expect(state(BULB).power).to.equal('off');
      await send({ payload: true });
      expect(state(BULB).power).to.equal('on');
      await send({ payload: false });
      expect(state(BULB).power).to.equal('off');
    });

    it('toggles ("toggle" and {toggle: true}), reporting the new power per light', async () => {
      fleet.light(BULB).setState({ power: 'off' });
      let msg = await send({ payload: 'toggle' });
      expect((msg.payload as Results)[0]).to.include({ status: 'ok', power: 'on' });
      expect(state(BULB).power).to.equal('on');
      msg = await send({ payload: { toggle: true, duration: 0 } });
      expect((msg.payload as Results)[0]).to.include({ status: 'ok', power: 'off' });
      expect(state(BULB).power).to.equal('off');
    });

    it('reads any other string as a colour string', async () => {
      await send({ payload: 'red' });
      expect(state(BULB).color.hue).to.be.closeTo(0, 0.5);
      expect(state(BULB).color.saturation).to.be.closeTo(1, 0.01);
      await send({ payload: '#00ff00' });
      expect(state(BULB).color.hue).to.be.closeTo(120, 0.5);
      await send({ payload: 'kelvin:2700 saturation:0' });
      expect(state(BULB).color.kelvin).to.equal(2700);
      expect(state(BULB).color.saturation).to.equal(0);
    });

    it('reads a number from 0 to 1 as the brightness', async () => {
      await send({ payload: 0.3 });
      expect(state(BULB).color.brightness).to.be.closeTo(0.3, 0.01);
    });

    it('paints the pixels of a matrix light ({pixels}, and a rectangle {color, x, width}) and a theme over a strip ({theme})', async () => {
      const grid = Array.from({ length: 6 }, (_, row) => Array.from({ length: 5 }, () => (row % 2 === 0 ? 'red' : 'blue')));
      let msg = await send({ selector: `id:${CANDLE}`, payload: { pixels: grid, duration: 0 } });
      expect(msg.payload).to.deep.equal([{ id: CANDLE, label: 'Candle', status: 'ok' }]);
      expect(state(CANDLE).tiles![0]!.map((c) => Math.round(c.hue))).to.deep.equal(Array.from({ length: 30 }, (_, i) => (Math.floor(i / 5) % 2 === 0 ? 0 : 250)));
      await send({ selector: `id:${CANDLE}`, payload: { color: 'green', x: 4, width: 1, duration: 0 } });
      expect(state(CANDLE).tiles![0]!.map((c) => Math.round(c.hue))).to.deep.equal(Array.from({ length: 30 }, (_, i) => (i % 5 === 4 ? 120 : Math.floor(i / 5) % 2 === 0 ? 0 : 250)));
      msg = await send({ selector: `id:${STRIP}`, payload: { theme: 'spring', duration: 0 } });
      expect((msg.payload as Results)[0]).to.include({ id: STRIP, status: 'ok' });
      expect(new Set(state(STRIP).zones!.map((z) => Math.round(z.hue))).size).to.be.greaterThan(2);
    });

    it('lets msg.selector win over the node selector', async () => {
      fleet.light(TABLE).setState({ power: 'off' });
      const before = writesTo(fleet, BULB);
      const msg = await send({ payload: 'on', selector: 'label:Kitchen table' });
      expect((msg.payload as Results).map((r) => r.id)).to.deep.equal([TABLE]);
      expect(state(TABLE).power).to.equal('on');
      expect(writesTo(fleet, BULB)).to.equal(before);
    });

    it('takes an empty or blank msg.selector as not given: the node selector stands', async () => {
      for (const selector of ['', '  ']) {
        fleet.light(BULB).setState({ power: 'off' });
        const writes = writesTo(fleet, TABLE);
        const msg = await send({ payload: 'on', selector });
        expect((msg.payload as Results).map((r) => r.id), JSON.stringify(selector)).to.deep.equal([BULB]);
        expect(state(BULB).power).to.equal('on');
        expect(writesTo(fleet, TABLE)).to.equal(writes);
      }
    });

    it('reads power in any case in an object, as in the "ON" payload', async () => {
      await send({ payload: { power: 'ON' } });
      expect(state(BULB).power).to.equal('on');
      await send({ payload: { power: ' Off ', brightness: 0.4 } });
      expect(state(BULB).power).to.equal('off');
      expect(state(BULB).color.brightness).to.be.closeTo(0.4, 0.01);
      await send({ payload: 'ON' });
      expect(state(BULB).power).to.equal('on');
    });

    it('acts on every light a group selector names', async () => {
      const msg = await send({ payload: { power: 'on' }, selector: 'group:Kitchen' });
      expect((msg.payload as Results).map((r) => r.id).sort()).to.deep.equal([BULB, TABLE]);
      expect(msg.ok).to.equal(true);
    });

    after(unload);

    it('fades over the payload duration, else the node transition, else the config default', async () => {
      await helper.unload();
      await load({ duration: '2.5' });
      const durations = (): number[] => fleet.light(BULB).received('SetColor').map((p) => (p.payload as { durationMs: number }).durationMs);
      fleet.light(BULB).clearRecords();
      await send({ payload: { color: 'blue', power: 'on', duration: 1.5 } });
      expect(durations().at(-1)).to.equal(1500);
      await send({ payload: 'green' });
      expect(durations().at(-1)).to.equal(2500);
      await helper.unload();
      await load({}, { durationS: 0.75 });
      await send({ payload: 'red' });
      expect(durations().at(-1)).to.equal(750);
      await helper.unload();
    });

    it('in fast mode sends the end state without reading the light first', async () => {
      const firstAfterClear = (): string | null => {
        const names = fleet.light(BULB).received().map((p) => p.name);
        return names.find((n) => n === 'GetColor' || (n !== null && n.startsWith('Set'))) ?? null;
      };
      fleet.light(BULB).clearRecords();
      await send({ payload: { power: 'on', color: 'orange' } });
      expect(firstAfterClear(), 'a normal write reads first').to.equal('GetColor');
      fleet.light(BULB).clearRecords();
      const msg = await send({ payload: { power: 'off', color: 'purple', fast: true } });
      expect(msg.ok).to.equal(true);
      await until(() => state(BULB).power === 'off', { timeoutMs: 1000, what: 'the light switched off' });
      expect(firstAfterClear(), 'a fast write does not').to.match(/^Set/);
    });

    it('keeps up with a flood of messages: one waiting for the light gives way to a newer one, and its result says so', async () => {
      const got = collect<{ payload: Results & Array<{ superseded?: true }>; ok: boolean; n: number }>('out');
      fleet.light(BULB).clearRecords();
      const hues = Array.from({ length: 40 }, (_, i) => (i * 9) % 360);
      hues.forEach((hue, n) => inject('set', { payload: { power: 'on', color: `hue:${hue} saturation:1`, brightness: 0.4 }, n }));
      await until(() => got.length === hues.length, { what: 'one output per message' });
      // One output a message, every light ok; all but the first and last were replaced while they waited.
      const byMessage = [...got].sort((a, b) => a.n - b.n);
      expect(byMessage.map((m) => [m.ok, m.payload[0]!.status])).to.deep.equal(hues.map(() => [true, 'ok']));
      expect(byMessage.filter((m) => m.payload[0]!.superseded === true).length).to.be.at.least(hues.length - 3);
      expect(byMessage.at(-1)!.payload[0]!.superseded).to.equal(undefined);
      expect(state(BULB).color.hue).to.be.closeTo(hues.at(-1)!, 0.5);
      // The light got a few writes, not forty.
      expect(fleet.light(BULB).received().filter((p) => p.name === 'SetColor' || p.name === 'SetWaveformOptional').length).to.be.at.most(3);
    });

    it('shows the last outcome in its status', async () => {
      const seen = statuses('set');
      await send({ payload: 'on', selector: 'group:Kitchen' });
      await new Promise((r) => setImmediate(r));
      expect(seen.at(-1)).to.deep.include({ fill: 'green', text: '2 ok' });
    });
  });

  describe('effects', () => {
    beforeEach(async () => {
      fleet.clearRecords();
      await load();
    });

    const cases: Array<{ effect: string; selector: string; payload: Record<string, unknown>; message: string }> = [
      { effect: 'pulse', selector: `id:${BULB}`, payload: { color: 'hue:0 saturation:1 brightness:1 kelvin:3500', period: 0.5, cycles: 2 }, message: 'SetWaveform' },
      { effect: 'breathe', selector: `id:${BULB}`, payload: { color: { hue: 200 }, from_color: 'blue', peak: 0.3 }, message: 'SetWaveformOptional' },
      { effect: 'move', selector: `id:${STRIP}`, payload: { direction: 'backward', period: 2 }, message: 'SetMultiZoneEffect' },
      { effect: 'morph', selector: `id:${CANDLE}`, payload: { palette: ['red', 'blue'], period: 3 }, message: 'SetTileEffect' },
      { effect: 'flame', selector: `id:${CANDLE}`, payload: { period: 4 }, message: 'SetTileEffect' },
      { effect: 'clouds', selector: `id:${CANDLE}`, payload: { duration: 10 }, message: 'SetTileEffect' },
      { effect: 'sunrise', selector: `id:${CANDLE}`, payload: { duration: 60 }, message: 'SetTileEffect' },
      { effect: 'sunset', selector: `id:${CANDLE}`, payload: { duration: 60, power_on: true }, message: 'SetTileEffect' },
      { effect: 'off', selector: `id:${STRIP}`, payload: { power_off: true }, message: 'SetMultiZoneEffect' },
      { effect: 'clean', selector: `id:${CLEAN}`, payload: { duration: 3600 }, message: 'SetHevCycle' },
    ];
    for (const c of cases) {
      it(`runs ${c.effect} ({effect: "${c.effect}", ...})`, async () => {
        const serial = c.selector.slice(3);
        const msg = await send({ payload: { effect: c.effect, ...c.payload }, selector: c.selector });
        expect(msg.payload).to.deep.equal([{ id: serial, label: fleet.light(serial).state.label, status: 'ok' }]);
        expect(fleet.light(serial).receivedCount(c.message as 'SetWaveform'), c.message).to.be.greaterThan(0);
      });
    }
  });

  describe('scenes', () => {
    it('captures the selected lights as a scene ({capture}) and brings them back ({scene})', async () => {
      await load({ selector: 'group:Kitchen' }, { scenesFile: path.join(scenesDir, 'scenes.json') });
      fleet.light(BULB).setState({ power: 'on', color: { hue: 60, saturation: 1, brightness: 0.7, kelvin: 3500 } });
      fleet.light(TABLE).setState({ power: 'off' });
      const captured = await send({ payload: { capture: 'Evening' } });
      expect((captured.payload as Results).map((r) => r.id).sort()).to.deep.equal([BULB, TABLE]);
      expect((captured.scene as { name: string }).name).to.equal('Evening');

      await send({ payload: { power: 'on', color: 'blue' } });
      expect(state(TABLE).power).to.equal('on');
      const msg = await send({ payload: { scene: 'Evening', duration: 0 } });
      expect(msg.ok).to.equal(true);
      expect(state(TABLE).power).to.equal('off');
      expect(state(BULB).color.hue).to.be.closeTo(60, 0.5);
    });

    it('brings back the zones of a strip and the pixels of a matrix light ({scene})', async () => {
      await load({ selector: `id:${STRIP},id:${CANDLE}` }, { scenesFile: path.join(scenesDir, 'pictures.json') });
      const zones = Array.from({ length: 16 }, (_, i) => ({ hue: i * 20, saturation: 1, brightness: 0.5, kelvin: 3500 }));
      fleet.light(STRIP).setState({ power: 'on', zones });
      const painted = await send({ payload: { pixels: Array.from({ length: 6 }, (_, row) => Array.from({ length: 5 }, (_, col) => `hue:${(row * 5 + col) * 10} saturation:1`)), duration: 0 } });
      expect(painted.ok).to.equal(true);
      const pixels = state(CANDLE).tiles![0]!.map((c) => Math.round(c.hue));
      expect(new Set(pixels).size).to.equal(30);
      await send({ payload: { capture: 'Pictures' } });
      await send({ payload: { color: 'white', duration: 0 } });
      const msg = await send({ payload: { scene: 'Pictures', duration: 0 } });
      expect(msg.ok).to.equal(true);
      expect(state(STRIP).zones!.map((c) => Math.round(c.hue))).to.deep.equal(zones.map((z) => z.hue));
      expect(state(CANDLE).tiles![0]!.map((c) => Math.round(c.hue))).to.deep.equal(pixels);
    });
  });

  describe('renaming ({label}, {group}, {location}, {rename_group}, {rename_location})', () => {
    it('renames a light, moves it to a new group and renames that group, each on the virtual lights; then puts the names back', async () => {
      await load({ selector: `id:${TABLE}` });
      const labelled = await send({ payload: { label: 'Breakfast table' } });
      expect(labelled.payload).to.deep.equal([{ id: TABLE, label: 'Breakfast table', status: 'ok' }]);
      expect(state(TABLE).label).to.equal('Breakfast table');
      const kitchen = state(TABLE).group;
      await send({ payload: { group: 'Nook' } });
      const nook = state(TABLE).group;
      expect(nook.label).to.equal('Nook');
      expect(nook.id).to.not.equal(kitchen.id);
      // A rename needs no selector: {from, to} name the group.
      const renamed = await send({ payload: { rename_group: { from: 'nook', to: 'Breakfast nook' } }, selector: 'label:Bedside' });
      expect(renamed.payload).to.deep.equal([{ id: TABLE, label: 'Breakfast table', status: 'ok' }]);
      expect(state(TABLE).group).to.deep.include({ id: nook.id, label: 'Breakfast nook' });
      const home = state(TABLE).location;
      await send({ payload: { rename_location: { from: 'Home', to: 'House' } } });
      for (const serial of [BULB, TABLE, STRIP]) expect(state(serial).location).to.deep.include({ id: home.id, label: 'House' });
      // Back as it was for the other tests: the existing group by name keeps its id and label.
      await send({ payload: { rename_location: { from: 'House', to: 'Home' } } });
      await send({ payload: { group: 'Kitchen' } });
      await send({ payload: { label: 'Kitchen table' } });
      expect(state(TABLE).group).to.deep.equal(kitchen);
      expect(state(TABLE).label).to.equal('Kitchen table');
    });

    it('refuses a label over 32 bytes (LABEL_TOO_LONG), one for several lights, and a rename beside other keys; nothing is sent', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ payload: { label: 'x'.repeat(33) } }, 'LABEL_TOO_LONG'],
        [{ payload: { label: 'Both' }, selector: 'group:Kitchen' }, 'SELECTOR_NOT_ONE_LIGHT'],
        [{ payload: { rename_group: { from: 'Kitchen', to: 'Cuisine' }, power: 'on' } }, 'PARAMETER_INVALID'],
        [{ payload: { label: 'Desk', power: 'on' } }, 'PARAMETER_INVALID'],
        [{ payload: { rename_location: { from: 'Home' } } }, 'PARAMETER_MISSING'],
      ];
      await load({ selector: `id:${TABLE}` });
      const writes = (serial: string): number => fleet.light(serial).receivedCount('SetLabel') + fleet.light(serial).receivedCount('SetGroup') + fleet.light(serial).receivedCount('SetLocation');
      const before = [BULB, TABLE].map(writes);
      for (const [msg, code] of cases) {
        const caught = nextMessage('caught');
        inject('set', msg);
        expect(((await caught).error as { code: string }).code, JSON.stringify(msg)).to.equal(code);
      }
      expect([BULB, TABLE].map(writes)).to.deep.equal(before);
    });
  });

  describe('lights that fail', () => {
    it('sends failed lights to output 2, with msg.ok false and a status that counts them', async () => {
      await load({ selector: 'group:Kitchen' }, { timeoutS: 0.3 });
      await send({ payload: 'on' }); // both lights known and answering
      fleet.light(TABLE).setFaults({ unresponsive: true });
      try {
        const failed = nextMessage('failed');
        const seen = statuses('set');
        const msg = await send({ payload: 'off' });
        expect(msg.ok).to.equal(false);
        expect((msg.payload as Results).map((r) => [r.id, r.status]).sort()).to.deep.equal([[BULB, 'ok'], [TABLE, 'timed_out']]);
        expect((await failed).payload).to.deep.equal([{ id: TABLE, label: 'Kitchen table', status: 'timed_out' }]);
        await new Promise((r) => setImmediate(r));
        expect(seen.at(-1)).to.deep.include({ fill: 'yellow', text: '1 ok, 1 timed out' });
      } finally {
        fleet.light(TABLE).setFaults({ unresponsive: false });
      }
    });

    it('on a deploy of modified nodes, sends and shows nothing more for a write in flight, and finishes its message at close', async () => {
      const withComplete = (name: string): FlowNode[] => [
        ...flow(fleet, { name }, { timeoutS: 1 }),
        { id: 'completer', type: 'complete', z: 'f1', x: 1, y: 1, scope: ['set'], uncaught: false, wires: [['completed']] },
        { id: 'completed', type: 'helper', z: 'f1', x: 1, y: 1 },
      ];
      await helper.load(NODES, withComplete('first'));
      const completedFirst = collect('completed');
      await send({ payload: 'on' }); // the light is known and answering
      await until(() => completedFirst.length === 1, { what: 'its Complete message delivered' });
      const out = collect('out');
      const failed = collect('failed');
      const caught = collect('caught');
      const completed = collect('completed');
      const seen = statuses('set'); // the node of the first deploy
      fleet.light(BULB).setFaults({ unresponsive: true });
      try {
        const started = Date.now();
        const heard = fleet.light(BULB).receivedTotal;
        inject('set', { payload: 'off', topic: 'in flight' });
        await until(() => fleet.light(BULB).receivedTotal > heard, { what: 'the write to reach the light' });
        const connection = (helper.getNode('cfg') as unknown as LightwireConfigNode).connection;
        await helper.setFlows(withComplete('second'), 'nodes');
        const shownAtClose = seen.length;
        expect(Date.now() - started, 'the deploy did not wait for the light').to.be.below(900);
        expect(completed.map((m) => m.topic), 'the message is finished at close').to.deep.equal(['in flight']);
        // The write times out 1 s after it started: its result used to reach the new deployment then.
        // The write times out (the config's timeoutS, 1 s) and its operation ends: what it would send or show, it has.
        await until(() => connection.operationsInFlight === 0, { what: 'the write in flight to end' });
        await turns();
        expect(out, 'output 1').to.deep.equal([]);
        expect(failed, 'output 2').to.deep.equal([]);
        expect(caught, 'Catch').to.deep.equal([]);
        expect(seen.slice(shownAtClose), 'status after close').to.deep.equal([]);
        expect(completed).to.have.length(1);
      } finally {
        fleet.light(BULB).setFaults({ unresponsive: false });
      }
      // The node of the second deploy works, and its own result reaches the flow.
      const msg = await send({ payload: 'on' });
      expect(msg.ok).to.equal(true);
      expect(out).to.have.length(1);
    });

    it('sends nothing to output 2 when every light is ok', async () => {
      await load();
      const silent = noMessage('failed', 300);
      await send({ payload: 'on' });
      await silent;
    });
  });

  describe('bad messages', () => {
    const bad: Array<{ name: string; msg: Record<string, unknown>; code: string; node?: string }> = [
      { name: 'no selector anywhere', msg: { payload: 'on' }, code: 'PARAMETER_MISSING', node: 'bare' },
      { name: 'an empty msg.selector and no node selector', msg: { payload: 'on', selector: '  ' }, code: 'PARAMETER_MISSING', node: 'bare' },
      { name: 'a msg.selector that is not a string', msg: { payload: 'on', selector: 42 }, code: 'PARAMETER_INVALID' },
      { name: 'a malformed selector', msg: { payload: 'on', selector: 'colour:red' }, code: 'SELECTOR_INVALID' },
      { name: 'a selector that matches no light', msg: { payload: 'on', selector: 'label:Nowhere' }, code: 'LIGHTS_NOT_FOUND' },
      { name: 'no payload', msg: {}, code: 'PARAMETER_MISSING' },
      { name: 'an empty string', msg: { payload: ' ' }, code: 'PARAMETER_MISSING' },
      { name: 'an empty object', msg: { payload: {} }, code: 'PARAMETER_MISSING' },
      { name: 'an array', msg: { payload: ['on'] }, code: 'PARAMETER_INVALID' },
      { name: 'NaN', msg: { payload: Number.NaN }, code: 'PARAMETER_INVALID' },
      { name: 'an unknown colour', msg: { payload: 'blurple' }, code: 'COLOR_INVALID' },
      { name: 'an unknown theme', msg: { payload: { theme: 'sprung' } }, code: 'THEME_UNKNOWN' },
      { name: 'a grid that is not rows of colours', msg: { payload: { pixels: ['red'] } }, code: 'PARAMETER_INVALID' },
      { name: 'pixels for a light that is no matrix', msg: { payload: { color: 'red', x: 1 } }, code: 'CAPABILITY_MISSING' },
      { name: 'an unknown colour in an object', msg: { payload: { color: 'hue:400' } }, code: 'COLOR_INVALID' },
      { name: 'a colour object out of range', msg: { payload: { color: { hue: 400 } } }, code: 'PARAMETER_INVALID' },
      { name: 'a colour of the wrong type', msg: { payload: { color: 7 } }, code: 'PARAMETER_INVALID' },
      { name: 'an effect colour object out of range', msg: { payload: { effect: 'pulse', color: { hue: 400 } } }, code: 'PARAMETER_INVALID' },
      { name: 'a brightness above 1', msg: { payload: 1.5 }, code: 'PARAMETER_INVALID' },
      { name: 'a brightness that is a string', msg: { payload: { brightness: 'high' } }, code: 'PARAMETER_INVALID' },
      { name: 'a power that is neither on nor off', msg: { payload: { power: 'maybe' } }, code: 'PARAMETER_INVALID' },
      { name: 'a negative duration', msg: { payload: { power: 'on', duration: -1 } }, code: 'PARAMETER_INVALID' },
      { name: 'a misspelt key', msg: { payload: { brigthness: 0.5 } }, code: 'PARAMETER_INVALID' },
      { name: 'fast that is not a boolean', msg: { payload: { power: 'on', fast: 'yes' } }, code: 'PARAMETER_INVALID' },
      { name: 'an unknown effect', msg: { payload: { effect: 'disco' } }, code: 'PARAMETER_INVALID' },
      { name: 'a pulse without a colour', msg: { payload: { effect: 'pulse' } }, code: 'PARAMETER_MISSING' },
      { name: 'a pulse with a bad period', msg: { payload: { effect: 'pulse', color: 'red', period: -2 } }, code: 'PARAMETER_INVALID' },
      { name: 'an effect parameter of another effect', msg: { payload: { effect: 'flame', palette: ['red'] } }, code: 'PARAMETER_INVALID' },
      { name: 'move on a bulb without zones', msg: { payload: { effect: 'move' } }, code: 'CAPABILITY_MISSING' },
      { name: 'an unknown scene', msg: { payload: { scene: 'Nope' } }, code: 'SCENE_NOT_FOUND' },
      { name: 'toggle that is not true', msg: { payload: { toggle: 'yes' } }, code: 'PARAMETER_INVALID' },
      { name: 'a circular brightness', msg: { payload: { brightness: circular() } }, code: 'PARAMETER_INVALID' },
      { name: 'a BigInt brightness', msg: { payload: { brightness: 10n } }, code: 'PARAMETER_INVALID' },
      { name: 'a BigInt msg.selector', msg: { payload: 'on', selector: 5n }, code: 'PARAMETER_INVALID' },
      { name: 'a circular msg.selector', msg: { payload: 'on', selector: circular() }, code: 'PARAMETER_INVALID' },
      { name: 'a payload that throws when read', msg: { payload: throwing('effect') }, code: 'PARAMETER_INVALID' },
    ];

    // One runtime for every bad message in turn: each must leave the flow working for the next.
    before(async () => {
      fleet.light(BULB).setState({ power: 'off', color: { hue: 10, saturation: 0.5, brightness: 0.5, kelvin: 3500 } });
      await load();
    });
    after(unload);

    for (const c of bad) {
      it(`reports ${c.name} as ${c.code}, changes no light, and the flow goes on`, async () => {
        const looks = (): string => JSON.stringify([state(BULB).power, state(BULB).color, state(BULB).infrared]);
        const before = looks();
        const writes = writesTo(fleet, BULB);
        const caught = nextMessage('caught');
        const silent = noMessage('out', 200);
        inject(c.node ?? 'set', { ...c.msg, topic: 'bad' });
        const error = (await caught).error as { code?: string; message?: string; source?: { id: string } };
        expect(error.code, error.message).to.equal(c.code);
        expect(error.source?.id).to.equal(c.node ?? 'set');
        await silent;
        expect(writesTo(fleet, BULB)).to.equal(writes);
        expect(looks()).to.equal(before);
        // The next good message still works.
        const ok = await send({ payload: { infrared: 0 }, selector: `id:${BULB}` });
        expect(ok.payload).to.have.length(1);
      });
    }
  });

  describe('messages Node-RED itself cannot copy, and huge values', () => {
    beforeEach(async () => {
      await load();
    });

    it('logs a message whose payload throws when copied, without stopping the runtime, and goes on', async () => {
      const payload = {};
      Object.defineProperty(payload, 'power', { enumerable: true, get: () => { throw new Error('boom'); } });
      const writes = writesTo(fleet, BULB);
      const silent = noMessage('out', 200);
      inject('set', { payload });
      await silent;
      await until(() => helper.log().args.some((a: unknown[]) => /PARAMETER_INVALID: payload cannot be read: boom/.test(JSON.stringify(a))), { timeoutMs: 2000, what: 'the error in the log' });
      expect(writesTo(fleet, BULB)).to.equal(writes);
      const ok = await send({ payload: { infrared: 0 }, selector: `id:${BULB}` });
      expect(ok.payload).to.have.length(1);
    });

    it('quotes at most 200 characters of a huge value in its error', async () => {
      for (const payload of ['x'.repeat(5_000_000), { brightness: 'y'.repeat(5_000_000) }]) {
        const caught = nextMessage('caught');
        inject('set', { payload });
        const error = (await caught).error as { code?: string; message?: string };
        expect(error.code).to.be.oneOf(['COLOR_INVALID', 'PARAMETER_INVALID']);
        expect(error.message!.length).to.be.below(700);
        expect(error.message).to.include('(5000000 characters)');
      }
    });
  });

  describe('bad properties (hand-edited flows)', () => {
    it('refuses a node transition that is not a number: OPTIONS_INVALID on every input', async () => {
      await load({ duration: 'slow' });
      const caught = nextMessage('caught');
      inject('set', { payload: 'on' });
      expect(((await caught).error as { code: string }).code).to.equal('OPTIONS_INVALID');
    });

    it('refuses a node transition longer than a light can take at deploy, naming the limit', async () => {
      await load({ duration: '1e12' });
      const caught = nextMessage('caught');
      inject('set', { payload: 'on' });
      const error = (await caught).error as { code: string; message: string };
      expect(error.code).to.equal('OPTIONS_INVALID');
      expect(error.message).to.match(/option duration must be a number of seconds from 0 to \d+, got "1e12"$/);
    });

    it('refuses a node without a config node', async () => {
      await load({ config: '' });
      const caught = nextMessage('caught');
      inject('set', { payload: 'on' });
      expect(((await caught).error as { code: string }).code).to.equal('OPTIONS_INVALID');
    });

    it('passes on a config node with a bad property: OPTIONS_INVALID naming it', async () => {
      await load({}, { lanPort: 'seventy' });
      const caught = nextMessage('caught');
      inject('set', { payload: 'on' });
      const error = (await caught).error as { code: string; message: string };
      expect(error.code).to.equal('OPTIONS_INVALID');
      expect(error.message).to.contain('lanPort');
    });
  });
});

// Scenes that keep what they captured (issue 29 §4), through the library on virtual lights of their real geometry
// (an 8 x 8 Ceiling, a 16 x 8 Ceiling 13x26", a 16-zone strip with extended multizone, a 16-zone strip without it):
// every pixel and zone is compared on the fleet after activation, a running MOVE or MORPH comes back as the light
// reports it, and a scene file written before pictures still loads and activates.
import { expect } from 'chai';
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { picturesOf } from '../../core/control/scene-picture.js';
import { SceneStore } from '../../core/control/scene-store.js';
import { hsbkToWire, type Hsbk } from '../../core/protocol/index.js';
import type { LightInput } from '../../core/simulator/fleet-file.js';
import { NO_PAYLOAD } from '../../core/transport/requester.js';
import { serviceRig, type ServiceRig } from '../helpers/service-rig.js';
import { until } from '../helpers/wait.js';

const CEILING = 'd073d5000031';
const CAPSULE = 'd073d5000032';
const STRIP = 'd073d5000034';
const OLD_STRIP = 'd073d5000035';
const BULB = 'd073d5000036';
const FIXTURE = path.join(__dirname, '..', 'fixtures', 'scenes', 'before-pictures.json');

const START = { hue: 0, saturation: 0, brightness: 1, kelvin: 3500 };
const lights: LightInput[] = [
  { serial: CEILING, product: 176, label: 'Ceiling', power: 'on', color: START },
  { serial: CAPSULE, product: 201, label: 'Capsule', power: 'on', color: START },
  { serial: STRIP, product: 32, label: 'Strip', firmware: { major: 2, minor: 80 }, zoneCount: 16, power: 'on', color: START },
  { serial: OLD_STRIP, product: 31, label: 'Old strip', firmware: { major: 1, minor: 1 }, zoneCount: 16, power: 'on', color: START },
  { serial: BULB, product: 91, label: 'Bulb', power: 'on', color: START },
];

/** A colour on the wire, where the light keeps it: a scene restores what the light had, to the unit. */
const wire = (colors: readonly Hsbk[] | undefined): unknown[] => (colors ?? []).map(hsbkToWire);
const grid = (width: number, height: number, hueOf: (i: number) => number, brightnessOf: (i: number) => number = () => 1): string[][] =>
  Array.from({ length: height }, (_, row) => Array.from({ length: width }, (_, col) => `hue:${hueOf(row * width + col)} saturation:1 brightness:${brightnessOf(row * width + col)}`));

describe('Scenes keep zones, pixels and firmware effects (virtual lights)', function () {
  this.timeout(30_000);
  let rig: ServiceRig;
  let dir: string;
  /** The fleet's clock: a transition is over when it is moved past its end. */
  let clock = 0;
  const file = (): string => path.join(dir, 'scenes.json');
  const shown = (serial: string) => rig.fleet.light(serial).state;
  const received = (serial: string, name?: Parameters<ReturnType<ServiceRig['fleet']['light']>['received']>[0]) => rig.fleet.light(serial).received(name);

  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'lightwire-scene-pictures-'));
    clock = Date.now();
    rig = await serviceRig({ lights }, { scenes: file() }, { now: () => clock });
    await rig.service.start();
  });
  afterEach(async () => {
    await rig.close();
    await rig.service.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** Paints the Ceiling, the Capsule and both strips, each pixel and zone its own colour. */
  async function paintAll(): Promise<void> {
    await rig.service.paint(`id:${CEILING}`, { pixels: grid(8, 8, (i) => i * 5, (i) => (i % 4 === 0 ? 0 : 0.5 + (i % 2) / 2)), durationS: 0 });
    await rig.service.paint(`id:${CAPSULE}`, { pixels: grid(16, 8, (i) => i * 2), durationS: 0 });
    for (const strip of [STRIP, OLD_STRIP]) {
      await rig.service.setState(`id:${strip}|0-3`, { color: 'hue:240 saturation:1 brightness:0.25', durationS: 0 });
      await rig.service.setState(`id:${strip}|4-9`, { color: 'hue:30 saturation:0.5 brightness:1', durationS: 0 });
      await rig.service.setState(`id:${strip}|10`, { color: 'kelvin:2700 saturation:0 brightness:0.75', durationS: 0 });
    }
  }

  it('restores every pixel of an 8 x 8 and a 16 x 8 light and every zone of two strips, in as few messages as the protocol allows, over the duration', async () => {
    await paintAll();
    const before = { ceiling: shown(CEILING).tiles![0]!, capsule: shown(CAPSULE).tiles![0]!, strip: shown(STRIP).zones!, old: shown(OLD_STRIP).zones! };
    expect(new Set(before.strip.map((z) => z.hue)).size).to.be.greaterThan(2);
    const scene = await rig.service.captureScene('Pictures', `id:${CEILING},id:${CAPSULE},id:${STRIP},id:${OLD_STRIP},id:${BULB}`);
    // What a face lists keeps the cloud's shape; the pictures are kept beside it.
    for (const state of scene.states) expect(Object.keys(state)).to.have.members(['brightness', 'color', 'power', 'selector']);
    const pictures = picturesOf(scene);
    const kinds = Object.fromEntries(scene.states.map((s, i) => [s.selector, pictures[i] === undefined ? 'none' : Object.keys(pictures[i]!).join('+')]));
    expect(kinds).to.deep.equal({ [`id:${CEILING}`]: 'pixels', [`id:${CAPSULE}`]: 'pixels', [`id:${STRIP}`]: 'zones', [`id:${OLD_STRIP}`]: 'zones', [`id:${BULB}`]: 'none' });

    await rig.service.setState('all', { color: 'hue:180 saturation:1 brightness:1 kelvin:3500', durationS: 0 });
    expect(wire(shown(CEILING).tiles![0])).to.not.deep.equal(wire(before.ceiling));
    rig.fleet.clearRecords();
    const results = await rig.service.activateScene('Pictures', { durationS: 2 });
    expect(results.map((r) => r.status)).to.deep.equal(['ok', 'ok', 'ok', 'ok', 'ok']);
    // Compared on the fleet, colour by colour as the lights keep them (the transition of 2 s is over at its end).
    clock += 2000;
    expect(wire(shown(CEILING).tiles![0])).to.deep.equal(wire(before.ceiling));
    expect(wire(shown(CAPSULE).tiles![0])).to.deep.equal(wire(before.capsule));
    expect(wire(shown(STRIP).zones)).to.deep.equal(wire(before.strip));
    expect(wire(shown(OLD_STRIP).zones)).to.deep.equal(wire(before.old));
    expect(shown(BULB).color.hue).to.equal(0);
    // 8 x 8: one Set64 into the visible buffer; 16 x 8: two bands into the back buffer and one CopyFrameBuffer; the
    // extended strip: one SetExtendedColorZones; the older strip: one SetColorZones per run of one colour. Each over 2 s.
    const set64 = (serial: string) => received(serial, 'Set64').map((r) => r.payload as { rect: { fbIndex: number }; durationMs: number });
    expect(set64(CEILING).map((p) => [p.rect.fbIndex, p.durationMs])).to.deep.equal([[0, 2000]]);
    expect(set64(CAPSULE).map((p) => p.rect.fbIndex)).to.deep.equal([1, 1]);
    expect(received(CAPSULE, 'CopyFrameBuffer').map((r) => (r.payload as { durationMs: number }).durationMs)).to.deep.equal([2000]);
    expect(received(STRIP, 'SetExtendedColorZones').map((r) => (r.payload as { durationMs: number; colorsCount: number }).colorsCount)).to.deep.equal([16]);
    expect(received(OLD_STRIP, 'SetColorZones')).to.have.length(4);
    expect(received(CEILING, 'SetColor')).to.have.length(0);
    // No effect was running when captured: whatever runs now is stopped before the picture is painted.
    expect(received(CEILING, 'SetTileEffect').map((r) => (r.payload as { settings: { type: number } }).settings.type)).to.deep.equal([0]);
  });

  it('keeps the pictures in the scene file (zones, pixels, one line a colour) and they come back from it', async () => {
    await paintAll();
    await rig.service.captureScene('Pictures', `id:${CEILING},id:${STRIP}`);
    await rig.service.scenes!.flush();
    const text = await readFile(file(), 'utf8');
    const doc = JSON.parse(text) as { scenes: { states: Record<string, unknown>[] }[] };
    expect(Object.keys(doc.scenes[0]!.states[0]!)).to.include('pixels');
    expect((doc.scenes[0]!.states[0]!.pixels as unknown[][])[0]).to.have.length(64);
    expect((doc.scenes[0]!.states[1]!.zones as unknown[])).to.have.length(16);
    expect(text).to.match(/\n +\[\d[\d.]*, \d[\d.]*, \d[\d.]*, \d+\],?\n/);
    const again = await SceneStore.open(file());
    const scene = again.list()[0]!;
    expect(picturesOf(scene)).to.deep.equal(picturesOf(rig.service.findScene('Pictures')));
    expect(picturesOf(scene)[0]!.pixels![0]).to.have.length(64);
    // A rename keeps them.
    const renamed = await again.rename(scene.uuid, 'Renamed');
    expect(picturesOf(renamed)).to.deep.equal(picturesOf(scene));
  });

  it('brings back a running MOVE and a running MORPH with the settings the lights reported', async () => {
    await paintAll();
    await rig.service.move(`id:${STRIP}`, { direction: 'backward', periodS: 3 });
    await rig.service.morph(`id:${CEILING}`, { periodS: 7, palette: ['red', 'hue:240 saturation:1', 'hue:120 saturation:1 brightness:0.5'] });
    const zones = wire(shown(STRIP).zones);
    await rig.service.captureScene('Moving', `id:${STRIP},id:${CEILING}`);
    await rig.service.effectsOff('all', {});
    await rig.service.setState('all', { color: 'white', durationS: 0 });
    const ask = async (serial: string, name: 'GetMultiZoneEffect' | 'GetTileEffect') =>
      (await rig.client.requester.get(rig.client.addressOf(serial)!, name, NO_PAYLOAD as never, { timeoutMs: 1000 })).payload as { settings: { type: number; speedMs: number; parameters: number[]; paletteCount?: number; palette?: unknown[] } };
    expect((await ask(STRIP, 'GetMultiZoneEffect')).settings.type).to.equal(0);
    rig.fleet.clearRecords();
    await rig.service.activateScene('Moving', { durationS: 0 });
    // The zones MOVE moves are back first, then the effect runs as it did: MOVE, 3 s, backward (parameters[1] 0).
    expect(wire(shown(STRIP).zones)).to.deep.equal(zones);
    const move = (await ask(STRIP, 'GetMultiZoneEffect')).settings;
    expect([move.type, move.speedMs, move.parameters[1]]).to.deep.equal([1, 3000, 0]);
    const morph = (await ask(CEILING, 'GetTileEffect')).settings;
    expect([morph.type, morph.speedMs, morph.paletteCount]).to.deep.equal([2, 7000, 3]);
    expect(morph.palette!.slice(0, 3)).to.deep.equal([hsbkToWire({ hue: 0, saturation: 1, brightness: 1, kelvin: 3500 }), hsbkToWire({ hue: 240, saturation: 1, brightness: 1, kelvin: 3500 }), hsbkToWire({ hue: 120, saturation: 1, brightness: 0.5, kelvin: 3500 })]);
    const names = received(STRIP).map((r) => r.name);
    expect(names.indexOf('SetExtendedColorZones')).to.be.lessThan(names.indexOf('SetMultiZoneEffect'));
    expect(rig.service.light(STRIP)!.effect).to.equal('MOVE');
  });

  it('applies the activation: a brightness override dims the picture as a whole, ignored components stay as shown, an override colour paints it flat', async () => {
    await paintAll();
    const captured = shown(CEILING).tiles![0]!;
    await rig.service.captureScene('Dim', `id:${CEILING},id:${STRIP}`);
    // Brightness 0.4: the brightest pixels (1) at 0.4, the 0.5 ones at 0.2, the dark ones dark; hues as captured.
    await rig.service.activateScene('Dim', { durationS: 0, overrides: { brightness: 0.4 } });
    const dimmed = shown(CEILING).tiles![0]!;
    expect(dimmed.map((c) => Math.round(c.brightness * 100))).to.deep.equal(captured.map((c) => Math.round(c.brightness * 40)));
    expect(wire(dimmed).map((c) => (c as { hue: number }).hue)).to.deep.equal(wire(captured).map((c) => (c as { hue: number }).hue));
    // ignore hue: every pixel keeps the hue it shows (read first), takes the rest from the scene.
    await rig.service.setState(`id:${CEILING}`, { color: 'hue:300 saturation:1 brightness:1', durationS: 0 });
    await rig.service.activateScene('Dim', { durationS: 0, ignore: ['hue'] });
    const kept = shown(CEILING).tiles![0]!;
    expect(new Set(kept.map((c) => Math.round(c.hue)))).to.deep.equal(new Set([300]));
    expect(wire(kept).map((c) => (c as { brightness: number }).brightness)).to.deep.equal(wire(captured).map((c) => (c as { brightness: number }).brightness));
    // An override colour: the light takes it flat, as Set State does.
    rig.fleet.clearRecords();
    await rig.service.activateScene('Dim', { durationS: 0, overrides: { color: 'green' } });
    expect(new Set(shown(STRIP).zones!.map((c) => Math.round(c.hue)))).to.deep.equal(new Set([120]));
    expect(new Set(shown(CEILING).tiles![0]!.map((c) => Math.round(c.hue)))).to.deep.equal(new Set([120]));
    expect(received(CEILING, 'Set64')).to.have.length(0);
  });

  it('paints a light that is off while dark and then powers it on over the duration; fast mode restores the picture too', async () => {
    await paintAll();
    const captured = wire(shown(CAPSULE).tiles![0]);
    await rig.service.captureScene('Capsule', `id:${CAPSULE}`);
    await rig.service.setState(`id:${CAPSULE}`, { power: 'off', color: 'white', durationS: 0 });
    rig.fleet.clearRecords();
    await rig.service.activateScene('Capsule', { durationS: 1.5 });
    const names = received(CAPSULE).map((r) => r.name).filter((n) => n !== 'SetTileEffect');
    expect(names).to.deep.equal(['Set64', 'Set64', 'CopyFrameBuffer', 'SetLightPower']);
    expect((received(CAPSULE, 'CopyFrameBuffer')[0]!.payload as { durationMs: number }).durationMs).to.equal(0);
    expect((received(CAPSULE, 'SetLightPower')[0]!.payload as { durationMs: number }).durationMs).to.equal(1500);
    expect(wire(shown(CAPSULE).tiles![0])).to.deep.equal(captured);

    await rig.service.setState(`id:${CAPSULE}`, { color: 'white', durationS: 0 });
    const results = await rig.service.activateScene('Capsule', { durationS: 0 }, { fast: true });
    expect(results.map((r) => r.status)).to.deep.equal(['ok']);
    // Fast mode answers once the messages are handed to the light's pacing lane: they arrive at its pace.
    await until(() => JSON.stringify(wire(shown(CAPSULE).tiles![0])) === JSON.stringify(captured), { timeoutMs: 3000, what: 'the picture, restored in fast mode' });
  });

  it('loads a scene file written before pictures, activates it as before, and keeps it as it was when a new scene is captured beside it', async () => {
    await rig.service.stop();
    await copyFile(FIXTURE, file());
    const store = await SceneStore.open(file());
    expect(store.problem).to.equal(null);
    const old = store.list()[0]!;
    expect(picturesOf(old)).to.deep.equal([]);
    const service = rig.service;
    await service.start();
    await service.scenes!.reload();
    rig.fleet.clearRecords();
    const results = await service.activateScene('Evening', { durationS: 0 });
    expect(results.map((r) => r.status)).to.deep.equal(['ok', 'ok', 'ok']);
    // Flat states, flat restore: one colour a light, no zone or pixel message, no effect stopped.
    expect(new Set(shown(CEILING).tiles![0]!.map((c) => Math.round(c.hue)))).to.deep.equal(new Set([30]));
    expect(new Set(shown(STRIP).zones!.map((c) => Math.round(c.hue)))).to.deep.equal(new Set([240]));
    expect(received(CEILING, 'Set64')).to.have.length(0);
    expect(received(CEILING, 'SetTileEffect')).to.have.length(0);
    await service.captureScene('New', `id:${STRIP}`);
    const doc = JSON.parse(await readFile(file(), 'utf8')) as { scenes: { name: string }[] };
    const original = JSON.parse(await readFile(FIXTURE, 'utf8')) as { scenes: { name: string }[] };
    expect(doc.scenes.find((s) => s.name === 'Evening')).to.deep.equal(original.scenes[0]);
  });
});

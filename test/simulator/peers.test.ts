// Other people's LIFX libraries against a fleet built with the default options on the LIFX port, as a user would
// point them at `lightwire simulate`: lifx-lan-client 2.1.2, node-lifx 0.8.0 and node-lifx-lan 0.5.0 (devDependencies).
// Loopback only: each broadcasts to 127.255.255.255 and unicasts to 127.0.0.x (lifx-lan-client ignores replies from the host's own addresses, 127.0.0.1 included).

import { expect } from 'chai';
import dgram from 'node:dgram';
import { createRequire } from 'node:module';
import { LIFX_PORT } from '../../core/protocol/limits.js';
import type { FleetInput } from '../../core/simulator/fleet-file.js';
import { Fleet } from '../../core/simulator/fleet.js';
import { sleep } from './client.js';
import { until } from '../helpers/wait.js';

const load = createRequire(__filename);
const BROADCAST = '127.255.255.255';
const DESK = 'd073d5000001';
const STRIP = 'd073d5000002';
const TILES = 'd073d5000003';
const FLEET: FleetInput = {
  lights: [
    { serial: DESK, product: 91, label: 'Desk', color: { hue: 120, saturation: 1, brightness: 0.5, kelvin: 3500 } },
    { serial: STRIP, product: 32, firmware: { major: 2, minor: 80 }, label: 'Strip', zoneCount: 16, color: { hue: 30, saturation: 0.5, brightness: 0.8 } },
    { serial: TILES, product: 55, label: 'Tiles', tileCount: 2 },
  ],
};

// The part of lifx-lan-client and node-lifx (untyped JavaScript, callbacks) these tests use.
type Callback<T> = (err: Error | null, value?: T) => void;
interface LlcColor { hue: number; saturation: number; brightness: number; kelvin: number }
interface LlcLight {
  readonly id: string;
  readonly address: string;
  getState(cb: Callback<{ color: LlcColor; power: number; label: string }>): void;
  getLabel(cb: Callback<string>): void;
  getHardwareVersion(cb: Callback<{ vendorId: number; productId: number }>): void;
  getFirmwareVersion(cb: Callback<{ majorVersion: number; minorVersion: number }>): void;
  getPower(cb: Callback<number>): void;
  color(hue: number, saturation: number, brightness: number, kelvin: number, duration: number, cb: Callback<void>): void;
  off(duration: number, cb: Callback<void>): void;
  getColorZones(start: number, end: number, cb: Callback<{ count: number; index: number; color: LlcColor | LlcColor[] }>): void;
  colorZones(start: number, end: number, h: number, s: number, b: number, k: number, duration: number, apply: boolean, cb: Callback<void>): void;
}
interface LlcClient {
  init(options: Record<string, unknown>, cb: () => void): void;
  on(event: 'light-new', cb: (light: LlcLight) => void): void;
  light(id: string): LlcLight;
  destroy(): void;
}

// node-lifx-lan: promises, hue and saturation 0-1, MACs as D0:73:D5:00:00:01.
interface NllColor { hue: number; saturation: number; brightness: number; kelvin: number }
interface NllDevice {
  readonly ip: string;
  readonly mac: string;
  readonly deviceInfo: { label: string; productId: number; multizone: { count: number } | null; chain: { total_count: number } | null };
  lightGet(): Promise<{ color: NllColor; power: number; label: string }>;
  setColor(p: { color: NllColor; duration: number }): Promise<void>;
  turnOff(p: { duration: number }): Promise<void>;
  multiZoneSetColorZones(p: { start: number; end: number; color: NllColor; duration: number; apply: number }): Promise<void>;
  multiZoneGetColorZones(p: { start: number; end: number }): Promise<{ count: number; index: number; colors: NllColor[] }>;
  tileGetTileState64(p: { tile_index: number; length: number }): Promise<{ tile_index: number; colors: NllColor[] }[]>;
}
interface NllModule {
  discover(p: { wait: number }): Promise<NllDevice[]>;
  destroy(): Promise<void>;
}

function call<T>(fn: (cb: Callback<T>) => void, timeoutMs = 3000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no answer')), timeoutMs);
    fn((err, value) => {
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(value as T);
    });
  });
}

/** Starts a client; rejects when it has not bound within a second (a client that cannot bind never calls back). */
function init(client: LlcClient, options: Record<string, unknown>): Promise<void> {
  return call<void>((cb) => client.init(options, () => cb(null)), 1000);
}

describe('simulator with the Node peer libraries', () => {
  let fleet: Fleet;

  beforeEach(async () => {
    fleet = new Fleet(FLEET, { port: LIFX_PORT });
    await fleet.start();
  });
  afterEach(() => fleet.stop());

  // node-lifx sends to the port it is bound to, so it must bind 56700 itself: 127.0.0.1:56700 is free beside the
  // fleet (lights on 127.0.0.2…, the discovery listener on 127.255.255.255).
  for (const library of ['lifx-lan-client', 'node-lifx'] as const) {
    it(`${library}: discovers every light, reads state, label, version and firmware, sets colour and power`, async () => {
      const { Client } = load(library) as { Client: new () => LlcClient };
      const client = new Client();
      const found: LlcLight[] = [];
      client.on('light-new', (light) => found.push(light));
      try {
        await init(client, { address: '127.0.0.1', port: library === 'node-lifx' ? LIFX_PORT : 0, broadcast: BROADCAST });
        await until(() => found.length === 3, { timeoutMs: 3000 });
        expect(found.map((l) => [l.id, l.address]).sort()).to.deep.equal([[DESK, '127.0.0.2'], [STRIP, '127.0.0.3'], [TILES, '127.0.0.4']]);
        const desk = client.light(DESK);
        expect(await call<{ color: LlcColor; power: number; label: string }>((cb) => desk.getState(cb))).to.deep.equal({
          color: { hue: 120, saturation: 100, brightness: 50, kelvin: 3500 },
          power: 1,
          label: 'Desk',
        });
        expect(await call<string>((cb) => client.light(STRIP).getLabel(cb))).to.equal('Strip');
        expect(await call<{ vendorId: number; productId: number }>((cb) => client.light(TILES).getHardwareVersion(cb))).to.include({ vendorId: 1, productId: 55 });
        expect(await call<object>((cb) => client.light(STRIP).getFirmwareVersion(cb))).to.deep.equal({ majorVersion: 2, minorVersion: 80 });
        await call<void>((cb) => desk.color(240, 100, 100, 4000, 0, cb));
        await call<void>((cb) => desk.off(0, cb));
        expect(await call<number>((cb) => desk.getPower(cb))).to.equal(0);
        expect(fleet.light(DESK).state).to.deep.include({ power: 'off', color: { hue: 240, saturation: 1, brightness: 1, kelvin: 4000 } });
      } finally {
        client.destroy();
      }
    });
  }

  it('lifx-lan-client: reads and paints the zones of a strip', async () => {
    const { Client } = load('lifx-lan-client') as { Client: new () => LlcClient };
    const client = new Client();
    let found = 0;
    client.on('light-new', () => found++);
    try {
      await init(client, { address: '127.0.0.1', port: 0, broadcast: BROADCAST });
      await until(() => found === 3, { timeoutMs: 3000 });
      const strip = client.light(STRIP);
      const zone = { hue: 30, saturation: 50, brightness: 80, kelvin: 3500 };
      const first = await call<{ count: number; index: number; color: LlcColor | LlcColor[] }>((cb) => strip.getColorZones(0, 15, cb));
      expect(first).to.deep.equal({ count: 16, index: 0, color: Array.from({ length: 8 }, () => zone) });
      expect(await call<object>((cb) => strip.getColorZones(3, 3, cb))).to.deep.equal({ count: 16, index: 3, color: zone });
      await call<void>((cb) => strip.colorZones(0, 3, 0, 100, 100, 3500, 0, true, cb));
      expect(fleet.light(STRIP).state.zones!.map((z) => z.hue)).to.deep.equal([0, 0, 0, 0, ...Array.from({ length: 12 }, () => 30)]);
    } finally {
      client.destroy();
    }
  });

  // node-lifx-lan broadcasts only on non-internal interfaces (the namespace has none) and binds 0.0.0.0:56700 without
  // SO_REUSEADDR, which no host holding a light on port 56700 allows: for this test it is given loopback, and an
  // ephemeral port (the lights answer the port a request came from). Both patches are undone afterwards.
  it('node-lifx-lan: discovers every light with its details, reads state, zones and tiles, sets colour, power and zones', async () => {
    const addressModule = load('node-lifx-lan/lib/lifx-lan-address.js') as { getNetworkInterfaces: () => unknown[] };
    const interfaces = addressModule.getNetworkInterfaces;
    const bind = dgram.Socket.prototype.bind;
    addressModule.getNetworkInterfaces = () => [{ address: '127.0.0.1', netmask: '255.0.0.0', family: 'IPv4', internal: false, broadcast: BROADCAST }];
    (dgram.Socket.prototype as { bind: (...args: unknown[]) => unknown }).bind = function (this: dgram.Socket, ...args: unknown[]) {
      const first = args[0] as { port?: number } | undefined;
      if (typeof first === 'object' && first !== null && first.port === LIFX_PORT) args[0] = { ...first, port: 0 };
      return (bind as (...a: unknown[]) => unknown).apply(this, args);
    };
    const nll = load('node-lifx-lan') as NllModule;
    try {
      const devices = await nll.discover({ wait: 1000 });
      const byMac = new Map(devices.map((d) => [d.mac, d]));
      expect([...byMac.keys()].sort()).to.deep.equal(['D0:73:D5:00:00:01', 'D0:73:D5:00:00:02', 'D0:73:D5:00:00:03']);
      const desk = byMac.get('D0:73:D5:00:00:01')!;
      const strip = byMac.get('D0:73:D5:00:00:02')!;
      const tiles = byMac.get('D0:73:D5:00:00:03')!;
      expect(strip.deviceInfo).to.deep.include({ label: 'Strip', productId: 32, multizone: { count: 16 } });
      expect(tiles.deviceInfo.chain).to.include({ total_count: 2 });
      const state = await desk.lightGet();
      expect(state).to.deep.include({ power: 1, label: 'Desk' });
      expect(state.color.hue).to.be.closeTo(1 / 3, 1e-4);
      await desk.setColor({ color: { hue: 0.5, saturation: 1, brightness: 0.3, kelvin: 3500 }, duration: 0 });
      await desk.turnOff({ duration: 0 });
      expect(fleet.light(DESK).state).to.deep.include({ power: 'off', color: { hue: 180, saturation: 1, brightness: 0.3, kelvin: 3500 } });
      await strip.multiZoneSetColorZones({ start: 4, end: 7, color: { hue: 0.25, saturation: 1, brightness: 1, kelvin: 3500 }, duration: 0, apply: 1 });
      const zones = await strip.multiZoneGetColorZones({ start: 0, end: 15 });
      expect([zones.count, zones.index, zones.colors.map((c) => Math.round(c.hue * 360))]).to.deep.equal([16, 0, [30, 30, 30, 30, 90, 90, 90, 90]]);
      const tileStates = await tiles.tileGetTileState64({ tile_index: 0, length: 2 });
      expect(tileStates.map((t) => [t.tile_index, t.colors.length])).to.deep.equal([[0, 64], [1, 64]]);
    } finally {
      await nll.destroy();
      addressModule.getNetworkInterfaces = interfaces;
      dgram.Socket.prototype.bind = bind;
    }
  });
});

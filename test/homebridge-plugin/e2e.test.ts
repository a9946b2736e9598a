// End to end: the packed tarball installed as a Homebridge plugin, Homebridge 2 headless and insecure (-I) against
// virtual lights in another process; everything checked from outside: HAP over HTTP, the LAN protocol, and the
// fleet's control endpoint. Runs only inside a private network namespace (see e2e-harness.ts).

import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ENUMS, fractionFromWire, hueWireToDegrees, type KnownPacket } from '../../core/protocol/index.js';
import { installTarball, packTarball } from '../helpers/packed.js';
import { TestClient } from '../simulator/client.js';
import {
  HAP_TYPE,
  HapIndex,
  assertPrivateNetwork,
  control,
  median,
  shortType,
  startFleetProcess,
  startHomebridge,
  untilPublished,
  type FleetProcess,
  type HomebridgeProcess,
} from './e2e-harness.js';

const S = (n: number): string => `d073d5${n.toString(16).padStart(6, '0')}`;
const FAILURE = -70402;

interface Summary {
  readonly address: string;
  readonly port: number;
  readonly state: { readonly power: string; readonly color: { hue: number; saturation: number; brightness: number; kelvin: number } };
}

/** Reads a light over the LAN protocol: one request to its own address, the first reply of the expected kind. */
async function lan(fleet: FleetProcess, serial: string, name: 'GetColor' | 'GetTileEffect'): Promise<KnownPacket> {
  const light = (await control(fleet, 'GET', `/lights/${serial}`)) as Summary;
  const client = await TestClient.open();
  try {
    const payload = name === 'GetColor' ? {} : {};
    const replies = await client.request(name, payload as never, { address: light.address, port: light.port }, { target: serial, res: true, count: 1, timeoutMs: 1000 });
    const reply = replies.find((r) => r.name === (name === 'GetColor' ? 'LightState' : 'StateTileEffect'));
    if (reply === undefined) throw new Error(`${serial} did not answer ${name}`);
    return reply;
  } finally {
    await client.close();
  }
}

describe('homebridge end to end: packed plugin in Homebridge 2 against virtual lights', function () {
  this.timeout(60000);
  let pluginModules: string;
  let pluginDir: string;

  before(async function () {
    this.timeout(240000);
    assertPrivateNetwork();
    const tarball = await packTarball();
    const dir = await mkdtemp(path.join(os.tmpdir(), 'lightwire-hb-plugins-'));
    await installTarball(dir, tarball);
    pluginModules = path.join(dir, 'node_modules');
    pluginDir = dir;
  });

  describe('11 lights', () => {
    let fleet: FleetProcess;
    let hb: HomebridgeProcess;
    let index: HapIndex;

    before(async function () {
      this.timeout(60000);
      fleet = await startFleetProcess(pluginDir, 11);
      hb = await startHomebridge(pluginModules, {
        discovery: { broadcastAddresses: ['127.255.255.255'], port: fleet.port },
        lights: { transitionS: 0, effects: ['flame'] },
      });
      ({ index } = await untilPublished(hb, 11, 30000));
    });

    after(async () => {
      hb?.hap.close();
      await hb?.child.stop();
      await fleet?.child.stop();
    });

    it('lists every light over HAP with its information and a Lightbulb per light', () => {
      expect([...index.bySerial.keys()].filter((s) => s.startsWith('d073d5')).sort()).to.deep.equal(Array.from({ length: 11 }, (_, i) => S(i + 1)));
      const candle = index.accessory(S(5));
      expect(HapIndex.value(candle, HAP_TYPE.AccessoryInformation, HAP_TYPE.Model)).to.match(/^LIFX Candle/);
      for (let n = 1; n <= 11; n++) expect(() => index.id(S(n), HAP_TYPE.Lightbulb, HAP_TYPE.On), S(n)).not.to.throw();
      expect(() => index.id(S(5), HAP_TYPE.Switch, HAP_TYPE.On, /Flame/)).not.to.throw();
      const ct = index.accessory(S(2)).services.flatMap((s) => s.characteristics).find((c) => shortType(c.type) === HAP_TYPE.ColorTemperature);
      expect([ct?.minValue, ct?.maxValue]).to.deep.equal([111, 667]);
    });

    it('PUT /characteristics turns an off light on in a new colour (checked over the LAN protocol)', async () => {
      const before = (await control(fleet, 'GET', `/lights/${S(7)}`)) as Summary;
      expect(before.state.power).to.equal('off');
      const id = (c: string) => index.id(S(7), HAP_TYPE.Lightbulb, c);
      const res = await hb.hap.write([
        { ...id(HAP_TYPE.On), value: true },
        { ...id(HAP_TYPE.Brightness), value: 30 },
        { ...id(HAP_TYPE.Hue), value: 200 },
        { ...id(HAP_TYPE.Saturation), value: 100 },
      ]);
      expect(res.status, res.body).to.equal(204);
      const state = (await lan(fleet, S(7), 'GetColor')).payload as { power: number; color: { hue: number; saturation: number; brightness: number } };
      expect(state.power).to.equal(0xffff);
      expect(hueWireToDegrees(state.color.hue)).to.be.closeTo(200, 0.1);
      expect(fractionFromWire(state.color.saturation)).to.be.closeTo(1, 0.001);
      expect(fractionFromWire(state.color.brightness)).to.be.closeTo(0.3, 0.001);
    });

    it('answers an unresponsive light with -70402 within 2 s while another light written at the same moment answers in under 200 ms', async () => {
      await control(fleet, 'PATCH', `/lights/${S(8)}`, { faults: { unresponsive: true } });
      try {
        const [silent, other] = await Promise.all([
          hb.hap.write([{ ...index.id(S(8), HAP_TYPE.Lightbulb, HAP_TYPE.Brightness), value: 12 }], { fresh: true }),
          hb.hap.write([{ ...index.id(S(1), HAP_TYPE.Lightbulb, HAP_TYPE.Brightness), value: 64 }], { fresh: true }),
        ]);
        expect(silent.status, silent.body).to.equal(207);
        expect(silent.statuses).to.deep.equal([FAILURE]);
        expect(silent.ms).to.be.below(2000);
        expect(other.status, other.body).to.equal(204);
        expect(other.ms).to.be.below(200);
        const light1 = (await control(fleet, 'GET', `/lights/${S(1)}`)) as Summary;
        expect(light1.state.color.brightness).to.be.closeTo(0.64, 0.001);
        process.stdout.write(`      (unresponsive light answered ${Math.round(silent.ms)} ms; the other light ${Math.round(other.ms)} ms)\n`);
      } finally {
        await control(fleet, 'PATCH', `/lights/${S(8)}`, { faults: { unresponsive: false } });
      }
    });

    it('starts the firmware effect from its switch', async () => {
      const res = await hb.hap.write([{ ...index.id(S(5), HAP_TYPE.Switch, HAP_TYPE.On, /Flame/), value: true }]);
      expect(res.status, res.body).to.equal(204);
      const effect = (await lan(fleet, S(5), 'GetTileEffect')).payload as { settings: { type: 0 | 1 | 2 | 3 | 4 | 5 } };
      expect(ENUMS.TileEffectType[effect.settings.type]).to.equal('FLAME');
    });

    it('measures a HAP write until the light changed (median of 20) and cache reads per second over HAP', async () => {
      const brightness = index.id(S(9), HAP_TYPE.Lightbulb, HAP_TYPE.Brightness);
      const times: number[] = [];
      for (let i = 0; i < 20; i++) {
        const value = 20 + i * 3;
        const res = await hb.hap.write([{ ...brightness, value }]);
        expect(res.status, res.body).to.equal(204);
        // The write answers only after the light confirmed: the light shows the value by now.
        const light = (await control(fleet, 'GET', `/lights/${S(9)}`)) as Summary;
        expect(light.state.color.brightness).to.be.closeTo(value / 100, 0.001);
        times.push(res.ms);
      }
      const ids = [...index.bySerial.keys()].filter((s) => s.startsWith('d073d5')).flatMap((s) => {
        const on = index.id(s, HAP_TYPE.Lightbulb, HAP_TYPE.On);
        const b = index.id(s, HAP_TYPE.Lightbulb, HAP_TYPE.Brightness);
        return [`${on.aid}.${on.iid}`, `${b.aid}.${b.iid}`];
      });
      let values = 0;
      const started = performance.now();
      while (performance.now() - started < 2000) {
        const read = await hb.hap.read(ids);
        expect(read.every((c) => c.status === undefined || c.status === 0)).to.equal(true);
        values += read.length;
      }
      const perSecond = values / ((performance.now() - started) / 1000);
      process.stdout.write(`      (HAP write -> light changed: median ${median(times).toFixed(1)} ms of 20; ` +
        `cache reads over HAP: ${Math.round(perSecond).toLocaleString('en')} values/s in ${ids.length}-value GETs)\n`);
      expect(median(times)).to.be.below(200);
    });

    it('stops cleanly on SIGTERM (exit code 0), having logged no HAP warning about the plugin', async () => {
      hb.hap.close();
      expect(await hb.child.stop(5000)).to.equal(0);
      expect(hb.child.output).not.to.match(/generated a warning|slow to respond|didn't respond|does not export|TypeError/i);
      expect(hb.child.output).to.match(/Added Candle 5/);
    });
  });

  describe('100 lights', () => {
    it('publishes all 100 accessories after start', async function () {
      this.timeout(90000);
      const fleet = await startFleetProcess(pluginDir, 100);
      const hb = await startHomebridge(pluginModules, { discovery: { broadcastAddresses: ['127.255.255.255'], port: fleet.port } });
      try {
        const { index, ms } = await untilPublished(hb, 100, 60000);
        expect([...index.bySerial.keys()].filter((s) => s.startsWith('d073d5'))).to.have.length(100);
        process.stdout.write(`      (bridge start to all 100 lights published over HAP: ${Math.round(ms)} ms)\n`);
      } finally {
        hb.hap.close();
        await hb.child.stop();
        await fleet.child.stop();
      }
    });
  });
});

// The service as a face uses it: LightService.start, ready, events in LightView terms, light(serial), numbers for
// colours, stop. Real virtual lights on loopback; discovery broadcasts to 127.255.255.255 only.

import { expect } from 'chai';
import { createHook } from 'node:async_hooks';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { LightClient, LightService, LightwireError, SceneStore, type LightView, type LightServiceOptions } from '../../core/index.js';
import { defaultFleet, Fleet } from '../../core/simulator/index.js';
import { turns, until } from '../helpers/wait.js';

const BROADCAST = '127.255.255.255';

async function fleetOf(count: number): Promise<Fleet> {
  const fleet = new Fleet(defaultFleet(count), { port: 0 });
  await fleet.start();
  return fleet;
}

function options(fleet: Fleet, extra: LightServiceOptions = {}): LightServiceOptions {
  return {
    discovery: { broadcastAddresses: [BROADCAST], port: fleet.port, burstScheduleMs: [0, 200], refreshIntervalMs: 0 },
    transport: { requestTimeoutMs: 2000 },
    ...extra,
  };
}

function openSockets(): number {
  return process.getActiveResourcesInfo().filter((r) => r === 'UDPWrap').length;
}

describe('LightService lifecycle', () => {
  let fleet: Fleet;
  let service: LightService | undefined;

  beforeEach(async () => {
    fleet = await fleetOf(4);
  });

  afterEach(async () => {
    await service?.stop();
    service = undefined;
    await fleet.stop();
  });

  it('is ready once every light of the first round is read: facts, state and the zones of a strip', async () => {
    service = await LightService.start(options(fleet));
    await service.ready;
    const views = service.views();
    expect(views.map((v) => v.serial)).to.deep.equal(['d073d5000001', 'd073d5000002', 'd073d5000003', 'd073d5000004']);
    for (const v of views) {
      expect(v.product, v.serial).to.not.equal(null);
      expect(v.power, v.serial).to.be.oneOf(['on', 'off']);
      expect(v.color, v.serial).to.not.equal(null);
    }
    const strip = service.light('d073d5000003')!;
    expect(strip.capabilities.multizone).to.equal(true);
    expect(strip.zones).to.have.length(16);
  });

  it('resolves ready as soon as the expected lights are read, without waiting out the timeout', async () => {
    const started = Date.now();
    service = await LightService.start(options(fleet, { expectLights: 4, readyTimeoutMs: 60_000 }));
    await service.ready;
    expect(service.views()).to.have.length(4);
    expect(Date.now() - started).to.be.below(30_000);
  });

  it('resolves ready after readyTimeoutMs when no light answers', async () => {
    await fleet.stop();
    fleet = await fleetOf(1);
    service = await LightService.start({
      discovery: { broadcastAddresses: [BROADCAST], port: 9, burstScheduleMs: [0], refreshIntervalMs: 0 },
      readyTimeoutMs: 50,
      expectLights: 3,
    });
    await service.ready;
    expect(service.views()).to.deep.equal([]);
  });

  it('announces each light once with added, as a LightView with its product known', async () => {
    service = new LightService(options(fleet));
    const added: LightView[] = [];
    service.on('added', (v) => added.push(v));
    await service.start();
    await service.ready;
    expect(added.map((v) => v.serial).sort()).to.deep.equal(['d073d5000001', 'd073d5000002', 'd073d5000003', 'd073d5000004']);
    for (const v of added) {
      expect(v.product).to.not.equal(null);
      expect(Object.isFrozen(v)).to.equal(true);
    }
  });

  it('emits changed with the fields a write changed', async () => {
    service = await LightService.start(options(fleet));
    await service.ready;
    const changes: [string, readonly string[]][] = [];
    service.on('changed', (v, fields) => changes.push([v.serial, fields]));
    const results = await service.setState('id:d073d5000001', { color: { hue: 120, saturation: 1 }, durationS: 0 });
    expect(results.map((r) => r.status)).to.deep.equal(['ok']);
    const mine = changes.filter(([s]) => s === 'd073d5000001').flatMap(([, f]) => f);
    expect(mine).to.include('color');
  });

  it('emits offline when a light stops answering, and online when it is back', async () => {
    service = await LightService.start(options(fleet, { discovery: { broadcastAddresses: [BROADCAST], port: fleet.port, burstScheduleMs: [0], refreshIntervalMs: 0, offlineAfterMisses: 1, readTimeoutMs: 300 } }));
    await service.ready;
    const events: string[] = [];
    service.on('offline', (v) => events.push(`offline ${v.serial}`));
    service.on('online', (v) => events.push(`online ${v.serial}`));
    fleet.light('d073d5000002').setFaults({ unresponsive: true });
    await service.refresh('id:d073d5000002');
    expect(events).to.deep.equal(['offline d073d5000002']);
    expect(service.light('d073d5000002')!.online).to.equal(false);
    fleet.light('d073d5000002').setFaults({ unresponsive: false });
    await service.refresh('id:d073d5000002');
    expect(events).to.deep.equal(['offline d073d5000002', 'online d073d5000002']);
  });

  it('answers light(serial) from its cache: the same view until the light changes', async () => {
    service = await LightService.start(options(fleet));
    await service.ready;
    const first = service.light('d073d5000001');
    expect(service.light('d073d5000001')).to.equal(first);
    expect(service.light('d073d5ffffff')).to.equal(undefined);
    await service.setState('id:d073d5000001', { power: 'off', durationS: 0 });
    const after = service.light('d073d5000001')!;
    expect(after).to.not.equal(first);
    expect(after.power).to.equal('off');
  });

  it('shows where each light answers, its firmware, Wi-Fi signal and running effect in its view', async () => {
    service = await LightService.start(options(fleet));
    await service.ready;
    const bulb = service.light('d073d5000001')!;
    expect(bulb.address).to.equal('127.0.0.2');
    expect(bulb.firmware).to.deep.equal({ major: 3, minor: 70 });
    expect(bulb.wifi?.quality).to.be.a('string');
    expect(bulb.wifi?.rssi).to.be.below(0);
    expect(bulb.effect).to.equal('OFF');
    const strip = 'd073d5000003';
    await service.move(`id:${strip}`, { periodS: 1 });
    expect(service.light(strip)!.effect).to.equal('MOVE');
    expect(service.list(`id:${strip}`)[0]!.effect).to.equal('MOVE');
  });

  it('takes a colour as numbers, and the light shows it', async () => {
    service = await LightService.start(options(fleet));
    await service.ready;
    const results = await service.setState('id:d073d5000001', { power: 'on', color: { hue: 120, saturation: 1, brightness: 0.5, kelvin: 3500 }, durationS: 0 });
    expect(results.map((r) => r.status)).to.deep.equal(['ok']);
    const shown = fleet.light('d073d5000001').state;
    expect(shown.color.hue).to.be.closeTo(120, 0.1);
    expect(shown.color.saturation).to.be.closeTo(1, 0.001);
    expect(shown.color.brightness).to.be.closeTo(0.5, 0.001);
    expect(shown.power).to.equal('on');
  });

  for (const [color, field] of [
    [{ hue: 361 }, 'color.hue'],
    [{ saturation: -0.1 }, 'color.saturation'],
    [{ brightness: Number.NaN }, 'color.brightness'],
    [{ kelvin: 20000 }, 'color.kelvin'],
    [{ red: 1 }, 'color.red'],
    [{}, 'color'],
  ] as const) {
    it(`refuses the colour ${JSON.stringify(color)} naming ${field}, and sends nothing`, async () => {
      service = await LightService.start(options(fleet));
      await service.ready;
      fleet.clearRecords();
      const err = await service.setState('all', { color: color as never }).then(() => null, (e: unknown) => e);
      expect(err).to.be.instanceOf(LightwireError);
      expect((err as LightwireError).code).to.equal('PARAMETER_INVALID');
      expect(JSON.stringify((err as LightwireError).params)).to.include(field);
      expect(fleet.light('d073d5000001').receivedTotal).to.equal(0);
    });
  }

  it('activates a scene by its name as well as by its uuid', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'lightwire-scenes-'));
    try {
      service = await LightService.start(options(fleet, { scenes: path.join(dir, 'scenes.json') }));
      await service.ready;
      await service.setState('id:d073d5000001', { power: 'on', color: { hue: 30, saturation: 1, brightness: 1 }, durationS: 0 });
      const scene = await service.captureScene('Evening', 'id:d073d5000001');
      await service.setState('id:d073d5000001', { color: { hue: 200 }, durationS: 0 });
      const results = await service.activateScene('Evening', { durationS: 0 });
      expect(results.map((r) => r.status)).to.deep.equal(['ok']);
      expect(fleet.light('d073d5000001').state.color.hue).to.be.closeTo(30, 0.1);
      expect(service.findScene(scene.uuid)).to.deep.equal(scene);
      const err = await service.activateScene('Morning').then(() => null, (e: unknown) => e);
      expect((err as LightwireError).code).to.equal('SCENE_NOT_FOUND');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('shares its scene file with another process: finds scenes captured there, keeps them when capturing, and tells `scenes`', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'lightwire-scenes-'));
    try {
      const file = path.join(dir, 'scenes.json');
      service = await LightService.start(options(fleet, { scenes: file }));
      await service.ready;
      const heard: string[][] = [];
      service.on('scenes', (scenes) => heard.push(scenes.map((s) => s.name)));
      // Another process (the CLI, Node-RED) captures a scene into the same file.
      const elsewhere = await SceneStore.open(file);
      const light = service.light('d073d5000001')!;
      await elsewhere.capture('Morning', [{ ...light, power: 'on', color: { hue: 120, saturation: 1, brightness: 1, kelvin: 3500 } }]);
      const results = await service.activateScene('Morning', { durationS: 0 });
      expect(results.map((r) => r.status)).to.deep.equal(['ok']);
      expect(fleet.light('d073d5000001').state.color.hue).to.be.closeTo(120, 0.1);
      expect(heard).to.deep.equal([['Morning']]);
      await service.captureScene('Evening', 'id:d073d5000002');
      expect(heard).to.deep.equal([['Morning'], ['Evening', 'Morning']]);
      expect((await SceneStore.open(file)).list().map((s) => s.name)).to.deep.equal(['Evening', 'Morning']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('starts with a scene file it cannot open (a folder): the lights work, scenes answer SCENE_STORE_FAILED, and it says so once', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'lightwire-scenes-'));
    try {
      const unstarted = new LightService(options(fleet, { scenes: dir }));
      const errors: Error[] = [];
      unstarted.on('error', (e: Error) => errors.push(e));
      await unstarted.start();
      service = unstarted;
      await service.ready;
      expect(errors.map((e) => (e as LightwireError).code)).to.deep.equal(['SCENE_STORE_FAILED']);
      const results = await service.setState('id:d073d5000001', { power: 'on', durationS: 0 });
      expect(results.map((r) => r.status)).to.deep.equal(['ok']);
      expect(service.listScenes()).to.deep.equal([]);
      for (const attempt of [service.activateScene('Evening'), service.captureScene('Evening', 'id:d073d5000001')]) {
        const err = await attempt.then(() => null, (e: unknown) => e);
        expect((err as LightwireError).code).to.equal('SCENE_STORE_FAILED');
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('takes effect colours as numbers too', async () => {
    service = await LightService.start(options(fleet));
    await service.ready;
    fleet.clearRecords();
    const results = await service.pulse('id:d073d5000001', { color: { hue: 240, saturation: 1 }, cycles: 1, periodS: 0.1 });
    expect(results.map((r) => r.status)).to.deep.equal(['ok']);
    const sent = fleet.light('d073d5000001').received('SetWaveformOptional');
    expect(sent).to.have.length(1);
    const err = await service.pulse('all', { color: { hue: 999 } }).then(() => null, (e: unknown) => e);
    expect((err as LightwireError).code).to.equal('PARAMETER_INVALID');
  });

  it('uses its default transition when a request names none', async () => {
    service = await LightService.start(options(fleet, { defaultDurationS: 2.5 }));
    await service.ready;
    fleet.clearRecords();
    await service.setState('id:d073d5000001', { color: 'blue' });
    const sent = fleet.light('d073d5000001').received('SetColor');
    expect(sent).to.have.length.greaterThan(0);
    expect((sent[0]!.payload as { durationMs: number }).durationMs).to.equal(2500);
  });

  it('refuses bad options with OPTIONS_INVALID naming the option', () => {
    for (const [opts, option] of [
      [{ deadlineMs: 0 }, 'deadlineMs'],
      [{ readyTimeoutMs: -1 }, 'readyTimeoutMs'],
      [{ expectLights: 1.5 }, 'expectLights'],
      [{ scenes: 42 }, 'scenes'],
      // A duration a timer cannot wait (Node fires it after 1 ms instead).
      [{ readyTimeoutMs: 2 ** 31 }, 'readyTimeoutMs'],
      [{ deadlineMs: 1e12 }, 'deadlineMs'],
      [{ freshStateMs: 1e15 }, 'freshStateMs'],
      [{ discovery: { heartbeatMs: 2 ** 31 } }, 'heartbeatMs'],
      [{ discovery: { burstScheduleMs: [0, 2 ** 31] } }, 'burstScheduleMs[1]'],
      [{ transport: { requestTimeoutMs: 2 ** 31 } }, 'requestTimeoutMs'],
      // Lists that are no lists, entries of the wrong type, option groups that are no objects.
      [{ discovery: { broadcastAddresses: 5 } }, 'broadcastAddresses'],
      [{ discovery: { broadcastAddresses: '127.255.255.255' } }, 'broadcastAddresses'],
      [{ discovery: { staticHosts: '127.0.0.2' } }, 'staticHosts'],
      [{ discovery: { staticHosts: [null] } }, 'staticHosts[0]'],
      [{ discovery: { sweepSubnets: [5] } }, 'sweepSubnets[0]'],
      [{ discovery: { burstScheduleMs: '0' } }, 'burstScheduleMs'],
      [{ discovery: 5 }, 'discovery'],
      [{ transport: 'fast' }, 'transport'],
      // A misspelt option, which would otherwise fall back to its default (broadcasting on every interface).
      [{ discovery: { broadcastAddress: ['127.255.255.255'] } }, 'broadcastAddress'],
      [{ transport: { requestTimeout: 500 } }, 'requestTimeout'],
    ] as const) {
      const err = (() => {
        try {
          new LightService(opts as never);
          return null;
        } catch (e) {
          return e;
        }
      })();
      expect((err as LightwireError).code, option).to.equal('OPTIONS_INVALID');
      expect(JSON.stringify((err as LightwireError).params)).to.include(option);
    }
  });

  it('names the option a misspelt one was probably meant to be', () => {
    expect(() => new LightService({ discovery: { broadcastAddress: ['127.255.255.255'] } } as never)).to.throw(
      'option broadcastAddress is not a discovery option (did you mean broadcastAddresses?)',
    );
    expect(() => new LightService({ transport: { requestTimeout: 500 } } as never)).to.throw('option requestTimeout is not a transport option (did you mean requestTimeoutMs?)');
  });

  it('refuses an option of its own it does not know, instead of running on the default', () => {
    // `deadline` for deadlineMs would leave every request on the 4 s default, silently.
    expect(() => new LightService({ deadline: 500 } as never)).to.throw('option deadline is not a service option (did you mean deadlineMs?)');
    expect(() => new LightService({ scene: '/tmp/scenes.json' } as never)).to.throw('option scene is not a service option (did you mean scenes?)');
    const far = (() => {
      try {
        new LightService({ colourSpace: 'p3' } as never);
        return null;
      } catch (e) {
        return e as LightwireError;
      }
    })();
    expect(far?.code).to.equal('OPTIONS_INVALID');
    expect(far?.message).to.equal('option colourSpace is not a service option');
    // The client option must be a client, and a client refuses what it does not know either.
    expect(() => new LightService({ client: {} } as never)).to.throw('option client must be a LightClient');
    expect(() => new LightClient({ discover: {} } as never)).to.throw('option discover is not a client option (did you mean discovery?)');
    expect(() => new LightClient(null as never)).to.throw('option options must be an object');
  });

  it('leaves no socket and no timer behind after stop, even when stopped before ready', async () => {
    // Timers are followed through async_hooks (the process-wide 'Timeout' count drifts with unref'd timers).
    const liveTimers = new Map<number, string>();
    const hook = createHook({
      init(id, type) {
        const stack = new Error().stack ?? '';
        // Mocha re-arms its own test timeout while the test runs.
        if (type === 'Timeout' && !stack.includes('/node_modules/mocha/')) liveTimers.set(id, stack);
      },
      destroy(id) {
        liveTimers.delete(id);
      },
    }).enable();
    const before = openSockets();
    for (let i = 0; i < 5; i++) {
      const s = await LightService.start(options(fleet, { readyTimeoutMs: 60_000 }));
      await s.stop();
      await s.ready; // resolved by stop
      expect(s.started).to.equal(false);
    }
    // A closed socket leaves the handle list a few turns of the loop later (setImmediate: waiting adds no timer).
    for (let i = 0; i < 1000 && openSockets() > before; i++) await new Promise((r) => setImmediate(r));
    hook.disable();
    expect(openSockets(), JSON.stringify(process.getActiveResourcesInfo())).to.equal(before);
    expect([...liveTimers.values()]).to.deep.equal([]);
  });

  it('opens one socket for two start() calls at once, and a stop() during start() leaves nothing running', async () => {
    const before = openSockets();
    const s = new LightService(options(fleet));
    await Promise.all([s.start(), s.start()]);
    expect(openSockets() - before).to.equal(1);
    await s.stop();
    expect(s.started).to.equal(false);
    // A client handed in unstarted is started, and stopped, by the service: its own.
    const { discovery, transport } = options(fleet);
    const tClient = new LightClient({ ...(discovery ? { discovery } : {}), ...(transport ? { transport } : {}) });
    const t = new LightService({ client: tClient });
    const starting = t.start();
    await t.stop();
    await starting;
    expect(t.started).to.equal(false);
    expect(tClient.started).to.equal(false);
    for (let i = 0; i < 1000 && openSockets() > before; i++) await new Promise((r) => setImmediate(r));
    expect(openSockets()).to.equal(before);
  });

  it('ends a waitForLights() in progress when stopped, with the lights known then', async () => {
    const { discovery, transport } = options(fleet);
    const client = new LightClient({ ...(discovery ? { discovery } : {}), ...(transport ? { transport } : {}) });
    service = await LightService.start({ client });
    const waiting = client.waitForLights(100, 60_000);
    await service.stop();
    const lights = await waiting;
    expect(lights.length).to.be.at.most(4);
  });

  it('once stopped, reads nothing: refresh and capture are CLIENT_STOPPED, the cache still answers list', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'lw-stopped-'));
    try {
      service = await LightService.start(options(fleet, { scenes: path.join(dir, 'scenes.json') }));
      await service.ready;
      await service.stop();
      const code = (p: Promise<unknown>): Promise<string> => p.then(() => 'resolved', (e: LightwireError) => e.code);
      expect(await code(service.refresh('all'))).to.equal('CLIENT_STOPPED');
      expect(await code(service.captureScene('Evening'))).to.equal('CLIENT_STOPPED');
      expect(await code(service.refreshLight('d073d5000001'))).to.equal('CLIENT_STOPPED');
      expect(service.list('all').map((l) => l.id)).to.have.length(4);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reports a listener that throws or rejects as LISTENER_FAILED and carries on: the write keeps its results', async () => {
    const errors: LightwireError[] = [];
    service = new LightService(options(fleet));
    service.on('error', (e) => errors.push(e as LightwireError));
    service.on('added', () => {
      throw new Error('added listener broke');
    });
    service.on('added', async () => {
      throw new Error('async added listener broke');
    });
    await service.start();
    await service.ready;
    service.on('changed', () => {
      throw new Error('changed listener broke');
    });
    const results = await service.setState('id:d073d5000001', { power: 'off', durationS: 0 });
    expect(results.map((r) => r.status)).to.deep.equal(['ok']);
    expect(fleet.light('d073d5000001').state.power).to.equal('off');
    await new Promise((r) => setImmediate(r));
    const texts = errors.map((e) => `${e.code} ${e.message}`);
    expect(texts).to.include("LISTENER_FAILED a listener of the 'added' event failed: added listener broke");
    expect(texts).to.include("LISTENER_FAILED a listener of the 'added' event failed: async added listener broke");
    expect(texts).to.include("LISTENER_FAILED a listener of the 'changed' event failed: changed listener broke");
    // Every light was still announced and is listed.
    expect(service.list('all')).to.have.length(4);
  });

  it('logs an async error listener that rejects, once, rather than telling it again without end', async () => {
    const s = new LightService(options(fleet));
    let calls = 0;
    s.on('error', async () => {
      calls++;
      throw new Error('error listener rejects');
    });
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(w.message);
    process.on('warning', onWarning);
    try {
      s.emit('error', new Error('trouble'));
      // Reported as a warning; a listener told again would have been called by the next turns of the loop.
      await until(() => warnings.some((w) => w.includes("a listener of the 'error' event failed")), { what: 'the warning' });
      await turns();
    } finally {
      process.off('warning', onWarning);
    }
    expect(calls).to.equal(1);
    expect(warnings).to.include("lightwire: a listener of the 'error' event failed: error listener rejects");
  });
});

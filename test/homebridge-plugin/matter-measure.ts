// Measures the Matter face with N virtual lights (default 100), for homebridge-plugin/README.md's "Measured":
// commissioning until the controller lists every light, a Matter command until the light changed (median of 20),
// and Homebridge's resident memory with Matter on and off. Not a test (no assertion on speed): run it inside a
// private network namespace, as npm test does:
//   unshare --net --pid --fork --kill-child --mount-proc bash -c 'ip link set lo up && node --import tsx test/homebridge-plugin/matter-measure.ts'
// (--mount-proc: Homebridge's memory is read from /proc/<pid>/status, which must be this namespace's)
// (LIGHTWIRE_MEASURE_LIGHTS=N for another fleet size).

import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { installTarball, packTarball } from '../helpers/packed.js';
import { until } from '../helpers/wait.js';
import { control, median, startFleetProcess, startHomebridge, untilPublished, type HomebridgeProcess } from './e2e-harness.js';
import { MatterController, commissioningOf, prepareMatterLoopback } from './matter-harness.js';

const LIGHTS = Number(process.env.LIGHTWIRE_MEASURE_LIGHTS ?? 100);
const SETTLE_MS = 5000;

function rssMb(hb: HomebridgeProcess): number {
  const status = readFileSync(`/proc/${hb.child.proc.pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]);
  return kb / 1024;
}

async function main(): Promise<void> {
  prepareMatterLoopback();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'lightwire-matter-measure-'));
  await installTarball(dir, await packTarball());
  const modules = path.join(dir, 'node_modules');
  const fleet = await startFleetProcess(dir, LIGHTS);
  const platform = { discovery: { broadcastAddresses: ['127.255.255.255'], port: fleet.port }, lights: { transitionS: 0 } };
  try {
    // Matter off: the HomeKit side alone.
    const off = await startHomebridge(modules, platform);
    await untilPublished(off, LIGHTS, 60000);
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const rssOff = rssMb(off);
    off.hap.close();
    await off.child.stop();

    const on = await startHomebridge(modules, { ...platform, matter: true }, { matter: { port: 5541 } });
    const { passcode, discriminator } = await commissioningOf(on.storage, 60000, () => on.child.running);
    await until(() => (on.child.output.match(/Matter: added /g)?.length ?? 0) >= LIGHTS || null, { timeoutMs: 60000, what: `${LIGHTS} Matter devices added` });
    const controller = await MatterController.start();
    const started = performance.now();
    const commissioned = await controller.must('commission', { port: 5541, passcode, discriminator }, 120000);
    const devices = await controller.devices();
    const listedMs = performance.now() - started;
    if (devices.length !== LIGHTS) throw new Error(`${devices.length} devices listed, not ${LIGHTS}`);
    const serial = 'd073d5000004';
    const endpoint = devices.find((d) => d.serial === serial)!.endpoint;
    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      const level = 60 + i * 5;
      const t = performance.now();
      await controller.must('invoke', { endpoint, cluster: 'LevelControl', command: 'moveToLevel', args: { level, transitionTime: 0, optionsMask: {}, optionsOverride: {} } });
      const light = (await control(fleet, 'GET', `/lights/${serial}`)) as { state: { color: { brightness: number } } };
      if (Math.abs(light.state.color.brightness - level / 254) > 0.001) throw new Error(`light at ${light.state.color.brightness}, not ${level / 254}`);
      times.push(performance.now() - t);
    }
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const rssOn = rssMb(on);
    await controller.close();
    on.hap.close();
    await on.child.stop();
    process.stdout.write(
      `${LIGHTS} lights: commissioned in ${Math.round(commissioned.commissionedMs as number)} ms, ` +
        `all ${devices.length} devices listed ${Math.round(listedMs)} ms after the commissioning request; ` +
        `Matter command -> light changed: median ${median(times).toFixed(1)} ms of 20 (min ${Math.min(...times).toFixed(1)}, max ${Math.max(...times).toFixed(1)}); ` +
        `Homebridge RSS ${SETTLE_MS / 1000} s after: Matter off ${rssOff.toFixed(0)} MB, on ${rssOn.toFixed(0)} MB\n`,
    );
  } finally {
    await fleet.child.stop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);

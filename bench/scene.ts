// Scenes that keep what they captured: restoring a scene of 50 matrix lights (8 x 8 LIFX Ceiling, pid 176), each
// pixel of each light its own colour: ms from the Activate Scene call until the fleet shows every pixel of every
// light (one Set64 a light, with the SetTileEffect OFF that goes before the picture). Duration 0, confirmed
// (acknowledged) and fast. The fleet runs in a worker thread (lib/paint-fleet.ts) and notes when the last light shows
// what was asked.
// Usage: npm run bench:scene [-- --reps K]   (npm wraps it in a private network namespace: unshare --net)

import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { median } from './lib/figures.js';
import { epochNow, FleetThread, QUIET_MS, serialOf, serviceOn, sleep } from './lib/fleet-thread.js';
import { assertPrivateNetns, guardLoopbackSends } from './lib/net-guard.js';
import type { PaintFleetReply } from './lib/paint-fleet.js';

assertPrivateNetns();
guardLoopbackSends();

const LIGHTS = 50;
const START = { hue: 0, saturation: 0, brightness: 0.5, kelvin: 3500 };

async function restoreScene(reps: number): Promise<Record<string, number[]>> {
  const serials = Array.from({ length: LIGHTS }, (_, i) => serialOf(i + 1));
  const fleet = new FleetThread({ lights: serials.map((serial, i) => ({ serial, product: 176, label: `Ceiling ${i + 1}`, power: 'on' as const, color: START })) });
  const ready = (await fleet.next()) as Extract<PaintFleetReply, { type: 'ready' }>;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'lightwire-bench-scene-'));
  const { service, client } = await serviceOn(ready.port, LIGHTS, { scenes: path.join(dir, 'scenes.json') });
  // Every light its own picture (untimed), captured, then learnt from the fleet as what a restore must show.
  await Promise.all(
    serials.map((serial, n) =>
      service.paint(`id:${serial}`, { pixels: Array.from({ length: 8 }, (_, row) => Array.from({ length: 8 }, (_, col) => ({ hue: (n * 7 + (row * 8 + col) * 5) % 360, saturation: 1, brightness: 1, kelvin: 3500 }))), durationS: 0 }),
    ),
  );
  await service.captureScene('Bench', 'all');
  const learnt = (await fleet.ask({ type: 'snapshot', part: 'pixels' })) as Extract<PaintFleetReply, { type: 'snapshot' }>;
  if (learnt.targets.some((t) => new Set(t.hues.map(Math.round)).size < 64)) throw new Error('a light does not show its own picture');
  const out: Record<string, number[]> = { confirmed: [], fast: [] };
  for (const mode of ['confirmed', 'fast'] as const) {
    for (let k = 0; k < reps; k++) {
      await fleet.ask({ type: 'reset', color: START });
      await Promise.all(serials.map((s) => client.refreshState(s)));
      await fleet.watch(learnt.targets);
      await sleep(QUIET_MS);
      const started = epochNow();
      const results = await service.activateScene('Bench', { durationS: 0 }, { fast: mode === 'fast' });
      if (results.length !== LIGHTS || results.some((r) => r.status !== 'ok')) throw new Error(`activate: ${results.filter((r) => r.status !== 'ok').length} not ok`);
      const at = await fleet.shown(10_000);
      if (at === undefined) throw new Error(`not every light showed the scene: ${JSON.stringify(await fleet.ask({ type: 'pending' }))}`);
      out[mode]!.push(at - started);
    }
  }
  await service.stop();
  await client.stop();
  await fleet.stop();
  await rm(dir, { recursive: true, force: true });
  return out;
}

async function main(): Promise<void> {
  const i = process.argv.indexOf('--reps');
  const reps = i >= 0 ? Number(process.argv[i + 1]) : 15;
  const scene = await restoreScene(reps);
  const line = (what: string, xs: number[]): string =>
    `${what}: median ${median(xs).toFixed(1)} ms, min ${Math.min(...xs).toFixed(1)}, max ${Math.max(...xs).toFixed(1)} (${xs.length} runs)`;
  console.log(line(`Activate Scene, ${LIGHTS} matrix lights x 64 pixels (pid 176), confirmed`, scene.confirmed!));
  console.log(line(`Activate Scene, ${LIGHTS} matrix lights x 64 pixels (pid 176), fast`, scene.fast!));
  writeFileSync(path.join(__dirname, 'results', 'scene.json'), `${JSON.stringify({ scene50Matrix: scene }, null, 1)}\n`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

// Pixels and themes: (1) painting a 16 x 8 LIFX Ceiling 13x26" (pid 201) from one Paint Pixels call, 128 pixels
// each of its own colour (two Set64 into the back buffer, one CopyFrameBuffer): ms from the call until the virtual
// light shows every pixel; (2) Paint Theme across 100 strips (16 zones each, extended multizone): ms from the call
// until every strip shows the theme's zones. Both with duration 0, confirmed (acknowledged) and fast. The fleet runs
// in a worker thread (lib/paint-fleet.ts) and notes when the last light shows what was asked.
// Usage: npm run bench:paint [-- --reps K]   (npm wraps it in a private network namespace: unshare --net)

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { median } from './lib/figures.js';
import { epochNow, FleetThread, QUIET_MS, serialOf, serviceOn, sleep } from './lib/fleet-thread.js';
import { assertPrivateNetns, guardLoopbackSends } from './lib/net-guard.js';
import type { PaintFleetReply } from './lib/paint-fleet.js';

assertPrivateNetns();
guardLoopbackSends();

const STRIPS = 100;
const ZONES = 16;
const CEILING = 'd073d5100001';
const THEMES = ['autumn', 'christmas', 'tranquil', 'spring', 'halloween', 'relaxing'];
const START = { hue: 0, saturation: 0, brightness: 0.5, kelvin: 3500 };
async function paintCeiling(reps: number): Promise<Record<string, number[]>> {
  const fleet = new FleetThread({ lights: [{ serial: CEILING, product: 201, label: 'Ceiling', power: 'on', color: START }] });
  const ready = (await fleet.next()) as Extract<PaintFleetReply, { type: 'ready' }>;
  const { service, client } = await serviceOn(ready.port, 1);
  const out: Record<string, number[]> = { confirmed: [], fast: [] };
  for (const mode of ['confirmed', 'fast'] as const) {
    for (let k = 0; k < reps; k++) {
      await fleet.ask({ type: 'reset', color: START });
      await client.refreshState(CEILING);
      const hues = Array.from({ length: 128 }, (_, i) => (i * 2 + k * 7 + (mode === 'fast' ? 100 : 0)) % 360);
      const grid = Array.from({ length: 8 }, (_, row) => hues.slice(row * 16, row * 16 + 16).map((h) => ({ hue: h, saturation: 1, brightness: 1, kelvin: 3500 })));
      await fleet.watch([{ serial: CEILING, part: 'pixels', hues }]);
      await sleep(QUIET_MS);
      const started = epochNow();
      const results = await service.paint(`id:${CEILING}`, { pixels: grid, durationS: 0 }, { fast: mode === 'fast' });
      if (results[0]?.status !== 'ok') throw new Error(`paint: ${JSON.stringify(results)}`);
      const at = await fleet.shown(5000);
      if (at === undefined) throw new Error('the ceiling never showed the grid');
      out[mode]!.push(at - started);
    }
  }
  await service.stop();
  await client.stop();
  await fleet.stop();
  return out;
}

async function themeStrips(reps: number): Promise<Record<string, number[]>> {
  const serials = Array.from({ length: STRIPS }, (_, i) => serialOf(i + 1));
  const fleet = new FleetThread({
    lights: serials.map((serial, i) => ({ serial, product: 32, label: `Strip ${i + 1}`, firmware: { major: 2, minor: 80 }, zoneCount: ZONES, power: 'on' as const, color: START })),
  });
  const ready = (await fleet.next()) as Extract<PaintFleetReply, { type: 'ready' }>;
  const { service, client } = await serviceOn(ready.port, STRIPS);
  const out: Record<string, number[]> = { confirmed: [], fast: [] };
  for (const mode of ['confirmed', 'fast'] as const) {
    for (let k = 0; k < reps; k++) {
      await fleet.ask({ type: 'reset', color: START });
      await Promise.all(serials.map((s) => client.refreshState(s)));
      const theme = THEMES[k % THEMES.length]!;
      // What the theme makes each strip show, learnt from an untimed run (no copy of the spreading rule here), then
      // every strip back to the start colour and quiet before the timed run.
      await service.theme('all', { theme, durationS: 0 });
      const learnt = (await fleet.ask({ type: 'snapshot', part: 'zones' })) as Extract<PaintFleetReply, { type: 'snapshot' }>;
      const targets = learnt.targets;
      if (targets.some((t) => new Set(t.hues.map(Math.round)).size < 2)) throw new Error(`${theme}: a strip shows one colour`);
      await fleet.ask({ type: 'reset', color: START });
      await Promise.all(serials.map((s) => client.refreshState(s)));
      await fleet.watch(targets);
      await sleep(QUIET_MS);
      const started = epochNow();
      const results = await service.theme('all', { theme, durationS: 0 }, { fast: mode === 'fast' });
      if (results.some((r) => r.status !== 'ok')) throw new Error(`theme: ${results.filter((r) => r.status !== 'ok').length} not ok`);
      const at = await fleet.shown(10_000);
      if (at === undefined) throw new Error(`not every strip showed ${theme}: ${JSON.stringify(await fleet.ask({ type: 'pending' }))}`);
      out[mode]!.push(at - started);
    }
  }
  await service.stop();
  await client.stop();
  await fleet.stop();
  return out;
}

async function main(): Promise<void> {
  const i = process.argv.indexOf('--reps');
  const reps = i >= 0 ? Number(process.argv[i + 1]) : 15;
  const ceiling = await paintCeiling(reps);
  const strips = await themeStrips(reps);
  const line = (what: string, xs: number[]): string =>
    `${what}: median ${median(xs).toFixed(1)} ms, min ${Math.min(...xs).toFixed(1)}, max ${Math.max(...xs).toFixed(1)} (${xs.length} runs)`;
  const report = {
    paint16x8: { confirmed: ceiling.confirmed, fast: ceiling.fast },
    theme100Strips: { confirmed: strips.confirmed, fast: strips.fast },
  };
  console.log(line('Paint Pixels, 16 x 8 (pid 201), confirmed', ceiling.confirmed!));
  console.log(line('Paint Pixels, 16 x 8 (pid 201), fast', ceiling.fast!));
  console.log(line(`Paint Theme, ${STRIPS} strips x ${ZONES} zones, confirmed`, strips.confirmed!));
  console.log(line(`Paint Theme, ${STRIPS} strips x ${ZONES} zones, fast`, strips.fast!));
  writeFileSync(path.join(__dirname, 'results', 'paint.json'), `${JSON.stringify(report, null, 1)}\n`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

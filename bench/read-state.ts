// Read state: time to read GetColor -> LightState from all N virtual lights, with every reply checked against the
// light it was asked of (serial, label, power, colour), and memory; Lightwire's LightClient against lifx-lan-client
// 2.1.2, node-lifx-lan 0.5.0 (at most 20 in flight) and node-lifx 0.8.0, same fleet, same run.
// Usage: npm run bench:read-state [-- --quick | --reps K | --sizes 10,100,500,1000 | --clients ours,llc | --json FILE]
// Each worker first discovers the fleet with its library's defaults (node-lifx-lan: devices made from the fleet's
// list), waits 1.5 s for what discovery sets off to finish, then reads. npm wraps it in a private network namespace.
// Equal work (memory with every light's facts read by every client) alone: `--facts-only --sizes 10,500 --json FILE`
// runs only those runs and replaces their figures in FILE, keeping the others (bench/lib/harness.ts suiteOptions).

import { existsSync, readFileSync } from 'node:fs';
import type { BenchResult } from './lib/figures.js';
import { publish } from './lib/figures.js';
import { mergeEqualWork, result, runSuite, suiteOptions } from './lib/harness.js';

async function main(): Promise<void> {
  const options = suiteOptions('read-state');
  const argv = process.argv.slice(2);
  const json = argv.includes('--json') ? argv[argv.indexOf('--json') + 1] : undefined;
  // Read before the run: a file that is not there or not a full result fails now, not after minutes of runs.
  const full = options.factsOnly && json !== undefined && existsSync(json) ? (JSON.parse(readFileSync(json, 'utf8')) as BenchResult) : undefined;
  const suite = await runSuite(options);
  const fresh = result('Read state', options, suite);
  publish(full === undefined ? fresh : mergeEqualWork(full, fresh));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

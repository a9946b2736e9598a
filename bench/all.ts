// npm run bench: every benchmark in turn, each against the Node peers in the same run, its figures written to
// bench/results/<name>.json, then docs/PERFORMANCE.md and its charts rebuilt from them (bench/report.ts).
// Usage: npm run bench [-- --quick (one repetition, N = 10, 100, 500) | --only set-state,http | --report-only]
// The network benchmarks run through their npm scripts, each in its own private network namespace.

import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const RESULTS = path.join(ROOT, 'bench', 'results');

const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const only = argv.includes('--only') ? argv[argv.indexOf('--only') + 1]!.split(',') : undefined;
const sizes = quick ? '10,100,500' : '10,100,500,1000';
const reps = quick ? '1' : '3';

const json = (name: string): string[] => ['--json', path.join(RESULTS, `${name}.json`)];

/** Each benchmark: its npm script and arguments. */
const BENCHES: { name: string; script: string; args: string[] }[] = [
  { name: 'codec', script: 'bench:codec', args: [...(quick ? ['--quick'] : []), ...json('codec')] },
  { name: 'set-state', script: 'bench:set-state', args: ['--sizes', sizes, '--reps', reps, ...json('set-state')] },
  { name: 'http', script: 'bench:http', args: ['--reps', quick ? '1' : '5', ...json('http')] },
  { name: 'discovery', script: 'bench:discovery', args: ['--sizes', sizes, '--reps', reps, ...json('discovery')] },
  { name: 'discovery-latency50', script: 'bench:discovery', args: ['--latency-ms', '50', '--sizes', sizes, '--reps', reps, ...json('discovery-latency50')] },
  { name: 'read-state', script: 'bench:read-state', args: ['--sizes', sizes, '--reps', reps, ...json('read-state')] },
  { name: 'node-red', script: 'bench:node-red', args: ['--reps', quick ? '3' : '7', ...json('node-red')] },
  // Two real Homebridges per N, each held 5 minutes (about 25 minutes in all; --quick holds them 60 s). Not 500: a
  // HAP bridge carries 149 lights, and the peer's Homebridge exits past that (bench/homebridge.ts).
  { name: 'homebridge', script: 'bench:homebridge', args: ['--sizes', '10,100', ...(quick ? ['--hold-s', '60'] : []), ...json('homebridge')] },
];

function run(command: string, args: readonly string[]): void {
  const r = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${r.status ?? r.signal}`);
}

function main(): void {
  mkdirSync(RESULTS, { recursive: true });
  if (!argv.includes('--report-only')) {
    for (const b of BENCHES) {
      if (only !== undefined && !only.includes(b.name)) continue;
      console.error(`\n=== ${b.name} ===`);
      run('npm', ['run', '--silent', b.script, '--', ...b.args]);
    }
  }
  run(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', 'report.ts')]);
}

main();

// homebridge-lifx-plugin (calvarium; "verified by Homebridge", on lifx-lan-client), the Homebridge plugin users
// install for LIFX, built from its source for bench/homebridge.ts: development only, under node_modules/.cache, never
// in the published package, never at Lightwire's install time.
//
// From the source at PEER_COMMIT: its dependencies from the registry (`npm install --ignore-scripts`; its lockfile is
// out of step with its package.json, so `npm ci` refuses it), its own TypeScript (`tsc`), then
// `npm pack` and that tarball installed with its production dependencies only (`npm install --omit=dev`), which is
// what a user's `npm install homebridge-lifx-plugin` gives Homebridge. The registry is needed, so this runs before the
// benchmark enters its private network namespace (`npm run bench:homebridge` does both); a finished build is reused.
// The source: LIGHTWIRE_PEER_SRC (a git directory holding PEER_COMMIT), else a clone of PEER_REPO.
// Usage: node --import tsx bench/lib/hb-peer.ts

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const PEER_NAME = 'homebridge-lifx-plugin';
export const PEER_REPO = 'https://github.com/calvarium/homebridge-lifx-plugin';
/** 0.3.6 and "improve error handling for unreachable accessories at startup" (the newest commit when measured). */
export const PEER_COMMIT = '7c7c8cdfd95965f8ab7f4bfbc5d296cb29ca7dc9';
export const PEER_PLATFORM = 'LifxPlugin';

const ROOT = path.resolve(__dirname, '../..');
export const PEER_DIR = path.join(ROOT, 'node_modules', '.cache', 'lightwire-peers', `${PEER_NAME}-${PEER_COMMIT.slice(0, 7)}`);
/** The folder Homebridge is given with -P: the installed plugin and its production dependencies. */
export const PEER_MODULES = path.join(PEER_DIR, 'install', 'node_modules');
const DONE = path.join(PEER_DIR, 'built.json');

function run(command: string, args: readonly string[], cwd: string): string {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_fund: 'false', npm_config_audit: 'false' } });
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} (in ${cwd}) exited ${r.status ?? r.signal}:\n${(r.stderr + r.stdout).slice(-3000)}`);
  return r.stdout;
}

export function peerBuilt(): boolean {
  return existsSync(DONE);
}

export function buildPeer(): void {
  if (peerBuilt()) return;
  rmSync(PEER_DIR, { recursive: true, force: true });
  const src = path.join(PEER_DIR, 'src');
  mkdirSync(src, { recursive: true });
  const gitDir = process.env.LIGHTWIRE_PEER_SRC;
  if (gitDir !== undefined) {
    const archive = spawnSync('git', ['--git-dir', gitDir, 'archive', '--format=tar', PEER_COMMIT], { maxBuffer: 64 << 20 });
    if (archive.status !== 0) throw new Error(`git archive ${PEER_COMMIT} from ${gitDir}: ${archive.stderr.toString()}`);
    const untar = spawnSync('tar', ['-x', '-C', src], { input: archive.stdout });
    if (untar.status !== 0) throw new Error(`tar: ${untar.stderr.toString()}`);
  } else {
    run('git', ['clone', '--quiet', PEER_REPO, src], PEER_DIR);
    run('git', ['checkout', '--quiet', PEER_COMMIT], src);
  }
  console.error(`${PEER_NAME}: npm install, tsc, npm pack`);
  run('npm', ['install', '--ignore-scripts', '--loglevel=error'], src);
  // Its own @types only: by default tsc also takes every node_modules/@types above it (Lightwire's, here).
  run(path.join(src, 'node_modules', '.bin', 'tsc'), ['--typeRoots', path.join(src, 'node_modules', '@types')], src);
  run('npm', ['pack', '--ignore-scripts', '--pack-destination', PEER_DIR, '--loglevel=error'], src);
  const tarball = readdirSync(PEER_DIR).find((f) => f.endsWith('.tgz'));
  if (tarball === undefined) throw new Error(`npm pack left no tarball in ${PEER_DIR}`);
  const install = path.join(PEER_DIR, 'install');
  mkdirSync(install, { recursive: true });
  writeFileSync(path.join(install, 'package.json'), `${JSON.stringify({ name: 'lightwire-peer-install', private: true }, null, 2)}\n`);
  console.error(`${PEER_NAME}: npm install --omit=dev ${tarball}`);
  run('npm', ['install', '--omit=dev', '--ignore-scripts', '--loglevel=error', path.join(PEER_DIR, tarball)], install);
  const version = (name: string): string => (JSON.parse(run(process.execPath, ['-p', `JSON.stringify(require('${name}/package.json').version)`], install)) as string);
  writeFileSync(DONE, `${JSON.stringify({ commit: PEER_COMMIT, version: version(PEER_NAME), lifxLanClient: version('lifx-lan-client') }, null, 2)}\n`);
}

if (require.main === module) {
  try {
    buildPeer();
    console.error(`${PEER_NAME} ready in ${PEER_MODULES}`);
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  }
}

// node-red-contrib-node-lifx (ristomatti), the Node-RED LIFX package users install, built from its source for
// bench/node-red.ts: development only, under node_modules/.cache (never in the published package).
//
// Run as a script (npm run bench:node-red does, before entering the network namespace: it needs git and the registry):
//   node --import tsx bench/lib/node-red-peer.ts [--from <git repository>]   (or LIGHTWIRE_PEER_FROM=<git repository>)
// It exports PEER_COMMIT of the repository (default: GitHub) into PEER_DIR and installs its dependencies from the
// registry with `npm install --ignore-scripts --omit=dev --no-package-lock`: its package-lock.json pins
// lifx-lan-client 2.1.1, which the registry no longer serves, so its ranges are resolved as `npm install
// node-red-contrib-node-lifx` resolves them for a user today (lifx-lan-client ^2.1.1 -> 2.1.2). Nothing is done when
// PEER_DIR already holds that commit's build.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
export const PEER_NAME = 'node-red-contrib-node-lifx';
/** 0.11.0, its newest release. */
export const PEER_COMMIT = '4f2fa07e4803880bfc6ec95afdf5f2cade7e5cd1';
export const PEER_REPOSITORY = 'https://github.com/ristomatti/node-red-contrib-node-lifx.git';
export const PEER_DIR = path.join(ROOT, 'node_modules', '.cache', 'lightwire-peers', PEER_NAME);
const MARKER = path.join(PEER_DIR, '.lightwire-commit');

export function peerVersion(): string {
  return (JSON.parse(readFileSync(path.join(PEER_DIR, 'package.json'), 'utf8')) as { version: string }).version;
}

export function peerBuilt(): boolean {
  return existsSync(MARKER) && readFileSync(MARKER, 'utf8').trim() === PEER_COMMIT && existsSync(path.join(PEER_DIR, 'node_modules', 'lifx-lan-client'));
}

export function buildPeer(from: string = PEER_REPOSITORY): void {
  if (peerBuilt()) return;
  rmSync(PEER_DIR, { recursive: true, force: true });
  mkdirSync(PEER_DIR, { recursive: true });
  const git = mkdtempSync(path.join(os.tmpdir(), 'lightwire-peer-git-'));
  try {
    // A local git directory (a mirror) is read as it is; anything else is cloned.
    const gitDir = existsSync(path.join(from, 'HEAD')) ? from : (execFileSync('git', ['clone', '--bare', '--quiet', from, git], { stdio: 'inherit' }), git);
    const archive = execFileSync('git', ['--git-dir', gitDir, 'archive', '--format=tar', PEER_COMMIT], { maxBuffer: 64 * 1024 * 1024 });
    execFileSync('tar', ['-x', '-C', PEER_DIR], { input: archive });
  } finally {
    rmSync(git, { recursive: true, force: true });
  }
  rmSync(path.join(PEER_DIR, 'package-lock.json'), { force: true });
  execFileSync('npm', ['install', '--ignore-scripts', '--omit=dev', '--no-package-lock', '--no-audit', '--no-fund'], { cwd: PEER_DIR, stdio: 'inherit' });
  writeFileSync(MARKER, `${PEER_COMMIT}\n`);
}

if (require.main === module) {
  const i = process.argv.indexOf('--from');
  buildPeer(i >= 0 ? process.argv[i + 1] : process.env.LIGHTWIRE_PEER_FROM);
  console.error(`${PEER_NAME} ${peerVersion()} (${PEER_COMMIT.slice(0, 12)}) in ${path.relative(ROOT, PEER_DIR)}`);
}

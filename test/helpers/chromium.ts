// The browser for the browser tests, through playwright-core, never a browser downloaded at run time:
// - the system's Chromium when there is one (/usr/bin/chromium, Debian's; /usr/bin/chromium-browser), else
// - the Chromium inside the devDependency @sparticuz/chromium (https://github.com/Sparticuz/chromium): a
//   headless-shell build with Open Sans and the NSS libraries beside it, brotli-compressed in the npm package, so
//   `npm install` brings it from the registry. It is unpacked once into node_modules/.cache/lightwire-chromium/
//   <version>/ (owned by whoever installed node_modules; a temporary folder renamed into place, so concurrent
//   first runs cannot see a half-written binary). The package's own executablePath() is not used: it unpacks
//   into the shared /tmp (/tmp/chromium, owned by the first user to run it, mode 0700) and returns a file that
//   merely exists, even while another process is still writing it.
// A browser that cannot start is a failure naming why, never a skip.

import { execFile } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, readFileSync, realpathSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress } from 'node:zlib';
import { chromium, type Browser } from 'playwright-core';

/** System Chromium binaries, in order of preference. */
export const SYSTEM_CHROMIUMS = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];
/** The flags that work on these machines, as root and as an ordinary user (Playwright gives each launch its own profile). */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox', // the tests may run as root, or as root of a user namespace (npm test), where the sandbox cannot start
  '--disable-gpu', // software rendering only: the package's SwiftShader/Vulkan GL backend is not needed, nor unpacked
  '--disable-dev-shm-usage',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-extensions',
];

interface Executable {
  readonly path: string;
  /** Environment for the browser process (the packaged one needs its fonts, maybe its libraries). */
  readonly env?: Record<string, string>;
}

/** A usable system Chromium: Ubuntu's chromium-browser is a wrapper around a snap, which cannot start inside npm test's namespace. */
function systemChromium(): string | undefined {
  for (const candidate of SYSTEM_CHROMIUMS) {
    if (!existsSync(candidate)) continue;
    if (realpathSync(candidate).startsWith('/snap/')) continue;
    const head = readFileSync(candidate).subarray(0, 64 * 1024).toString('latin1');
    if (head.startsWith('#!') && head.includes('/snap/')) continue;
    return candidate;
  }
  return undefined;
}

function run(file: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { env }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, output: `${stdout}${stderr}`.trim() });
    });
  });
}

async function inflate(archive: string, target: string, mode = 0o644): Promise<void> {
  await pipeline(createReadStream(archive), createBrotliDecompress(), createWriteStream(target, { mode }));
}

/** Decompresses a .tar.br to a file first: tar, reading from a pipe, may stop at the end-of-archive blocks and close it early. */
async function inflateTar(archive: string, intoDir: string): Promise<void> {
  const tarFile = path.join(intoDir, path.basename(archive, '.br'));
  await inflate(archive, tarFile);
  // --no-same-owner: as root of a user namespace (npm test for an ordinary user), tar would otherwise try to give
  // the files the archive's owners, which do not exist there.
  const result = await run('tar', ['-x', '--no-same-owner', '-C', intoDir, '-f', tarFile], process.env);
  await rm(tarFile, { force: true });
  if (result.code !== 0) throw new Error(`tar could not unpack ${archive} (exit ${result.code}): ${result.output}`);
}

/** Unpacks the package's binary, fonts and libraries into `dir` (a fresh folder), ready to run from `finalDir`. */
async function unpack(binDir: string, dir: string, finalDir: string): Promise<void> {
  await inflate(path.join(binDir, 'chromium.br'), path.join(dir, 'chromium'), 0o755);
  await inflateTar(path.join(binDir, 'fonts.tar.br'), dir); // fonts/Open_Sans/*.ttf (and the package's Lambda fonts.conf)
  await inflateTar(path.join(binDir, 'al2023.tar.br'), dir); // lib/: NSS and expat, for machines without them
  // Fontconfig: the system's configuration where there is one, plus the packaged font, so text renders everywhere.
  await writeFile(
    path.join(dir, 'fonts.conf'),
    [
      '<?xml version="1.0"?>',
      '<!DOCTYPE fontconfig SYSTEM "fonts.dtd">',
      '<fontconfig>',
      '  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>',
      `  <dir>${path.join(finalDir, 'fonts')}</dir>`,
      `  <cachedir>${path.join(finalDir, 'fontconfig-cache')}</cachedir>`,
      '</fontconfig>',
      '',
    ].join('\n'),
  );
}

async function packagedChromium(): Promise<Executable> {
  let entry: string;
  try {
    entry = require.resolve('@sparticuz/chromium');
  } catch {
    throw new Error('No Chromium: neither a system one (/usr/bin/chromium) nor the devDependency @sparticuz/chromium; run `npm install`');
  }
  const packageDir = path.dirname(path.dirname(entry)); // …/@sparticuz/chromium/build/index.js
  const { version } = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { version: string };
  const cacheRoot = path.resolve(packageDir, '../../.cache/lightwire-chromium');
  const dir = path.join(cacheRoot, version);
  if (!existsSync(dir)) {
    await mkdir(cacheRoot, { recursive: true });
    const staging = await mkdtemp(path.join(cacheRoot, `.${version}-`));
    try {
      await unpack(path.join(packageDir, 'bin'), staging, dir);
      await rename(staging, dir);
    } catch (err) {
      await rm(staging, { recursive: true, force: true });
      // Another process finished first: its copy is complete (it appeared by rename).
      if (!existsSync(dir)) throw err;
    }
  }
  const executable = path.join(dir, 'chromium');
  const env: Record<string, string> = { FONTCONFIG_PATH: dir };
  // The system's NSS when it has one; the packaged libraries (built for glibc 2.34) only where it has none.
  let probe = await run(executable, ['--version'], { ...process.env, ...env });
  if (probe.code !== 0 && /error while loading shared libraries/.test(probe.output)) {
    const lib = path.join(dir, 'lib');
    env.LD_LIBRARY_PATH = process.env.LD_LIBRARY_PATH ? `${lib}:${process.env.LD_LIBRARY_PATH}` : lib;
    probe = await run(executable, ['--version'], { ...process.env, ...env });
  }
  if (probe.code !== 0) throw new Error(`The Chromium of @sparticuz/chromium ${version} at ${executable} does not start (exit ${probe.code}): ${probe.output}`);
  return { path: executable, env };
}

let resolved: Promise<Executable> | undefined;

/** The Chromium the tests use (found or unpacked once per process). */
export function chromiumExecutable(): Promise<Executable> {
  const system = systemChromium();
  if (system !== undefined) return Promise.resolve({ path: system });
  resolved ??= packagedChromium();
  resolved.catch(() => {
    resolved = undefined;
  });
  return resolved;
}

export async function launchChromium(): Promise<Browser> {
  const { path: executablePath, env } = await chromiumExecutable();
  return chromium.launch({ executablePath, args: CHROMIUM_ARGS, ...(env !== undefined ? { env: { ...process.env, ...env } } : {}) });
}

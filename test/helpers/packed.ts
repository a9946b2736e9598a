// The package as users get it: `npm pack` output, installed into a fresh project from the npm cache, offline.
//
//   packTarball(): Promise<string>
//     Runs `npm pack` in the repository once per mocha process (later calls share the same promise) and resolves
//     to the absolute path of the .tgz in a fresh temporary directory (removed when the process exits).
//     `npm pack` runs the package's `prepack` script, so the tarball holds a clean build (stale dist/ removed
//     first), exactly what `npm publish` ships.
//     Takes a few seconds; give the calling hook a generous timeout (60 s).
//
//   installTarball(dir: string, tarball: string, extra?: string[]): Promise<void>
//     Makes `dir` a project with the tarball installed, as `npm install <tarball> ...extra` would, but OFFLINE
//     (the tests run inside `unshare --net`, with no network at all). `extra` are more packages installed beside
//     it, as `name` or `name@version` (e.g. ['node-red'] for a Node-RED user directory, ['homebridge'] for a
//     Homebridge plugin directory). `dir` and a minimal private package.json are created when missing; existing
//     `dependencies` there are kept. Resolves once `npm ci --offline` has finished in `dir`.
//
//     How: npm 11's `npm install` asks the registry for full package documents, which `npm ci` never fetches, so
//     `npm install --offline` cannot work from the cache that `npm ci` filled. Instead the helper writes `dir`'s
//     package.json and a package-lock.json derived from the repository's own lockfile (the tarball's
//     `dependencies`, each extra, and everything they need, at the versions and node_modules places the
//     repository has them; the repository's `overrides` for packages in that set), then runs
//     `npm ci --offline`, which reads only what `npm ci` cached. An extra that the repository's lockfile lacks,
//     or at another version, fails at once naming it; a package missing from the npm cache fails naming the
//     cache (run `npm ci` online first; .ci/run does). npm runs under the Node that runs the tests.
//
// Rejections carry npm's exit code and the tail of its output.

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** The repository root (this file is test/helpers/packed.ts). */
export const REPO_ROOT = path.resolve(__dirname, '../..');

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** npm's own CLI script when a `npm run` started us (npm_execpath), else `npm` from PATH. */
function npmCommand(): { file: string; prefix: string[] } {
  const cli = process.env.npm_execpath;
  if (cli !== undefined && /npm-cli\.c?js$/.test(cli) && existsSync(cli)) return { file: process.execPath, prefix: [cli] };
  return { file: 'npm', prefix: [] };
}

/**
 * The environment for a child npm: the parent's, without the `npm_*` variables that an outer `npm test` sets
 * (package fields, lifecycle event, local prefix), which would otherwise leak into the child's configuration.
 * The cache location is kept, and the Node running the tests comes first on PATH.
 */
function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    const lower = key.toLowerCase();
    if (!lower.startsWith('npm_') || lower === 'npm_config_cache') env[key] = value;
  }
  env.PATH = `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`;
  env.npm_config_update_notifier = 'false';
  return env;
}

function run(file: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<Run> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
      const spawnError = err !== null && typeof err.code === 'string' ? `cannot run ${file}: ${err.message}\n` : '';
      resolve({ code, stdout: String(stdout), stderr: spawnError + String(stderr) });
    });
  });
}

function runNpm(args: readonly string[], cwd: string): Promise<Run> {
  const { file, prefix } = npmCommand();
  return run(file, [...prefix, ...args], cwd, npmEnv());
}

const tail = (text: string, lines = 25): string => text.trim().split('\n').slice(-lines).join('\n');

// ---- pack ----

let packed: Promise<string> | undefined;

/** How long a pack lock may be held before it counts as left behind by a killed process. */
const PACK_LOCK_STALE_MS = 180_000;

/**
 * Runs `work` while holding a lock on packing this repository, shared by every process: mocha's workers each pack
 * once, and `npm pack`'s prepack removes and rebuilds dist/, so two at once could tar a half-built dist/ (or leave
 * none while a test reads it). The lock is a directory (mkdir is atomic) beside the system's temporary files.
 */
async function withPackLock<T>(work: () => Promise<T>): Promise<T> {
  const lock = path.join(os.tmpdir(), `lightwire-pack-${createHash('sha256').update(REPO_ROOT).digest('hex').slice(0, 12)}.lock`);
  for (;;) {
    try {
      await mkdir(lock);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const age = await stat(lock).then((s) => Date.now() - s.mtimeMs, () => 0);
      if (age > PACK_LOCK_STALE_MS) rmSync(lock, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  try {
    return await work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

export function packTarball(): Promise<string> {
  packed ??= (async () => {
    const dest = await mkdtemp(path.join(os.tmpdir(), 'lightwire-pack-'));
    process.once('exit', () => rmSync(dest, { recursive: true, force: true }));
    const result = await withPackLock(() => runNpm(['pack', '--pack-destination', dest], REPO_ROOT));
    if (result.code !== 0) throw new Error(`npm pack failed (exit ${result.code}):\n${tail(result.stderr + result.stdout)}`);
    const tarballs = (await readdir(dest)).filter((f) => f.endsWith('.tgz'));
    if (tarballs.length !== 1) throw new Error(`npm pack left ${tarballs.length} tarballs in ${dest}: ${tarballs.join(', ')}`);
    return path.join(dest, tarballs[0]!);
  })();
  // A failed pack is not remembered: the next caller tries again (and sees its own error).
  packed.catch(() => {
    packed = undefined;
  });
  return packed;
}

// ---- the lockfile of the install ----

interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  dev?: boolean;
  devOptional?: boolean;
  optional?: boolean;
  peer?: boolean;
  inBundle?: boolean;
  [field: string]: unknown;
}

interface Manifest {
  name?: string;
  version?: string;
  dependencies?: Record<string, string>;
  overrides?: Record<string, unknown>;
  [field: string]: unknown;
}

/** `name` or `name@version` (scoped names included). */
function parseSpec(spec: string): { name: string; version: string | undefined } {
  const at = spec.indexOf('@', 1);
  return at === -1 ? { name: spec, version: undefined } : { name: spec.slice(0, at), version: spec.slice(at + 1) };
}

/** Where Node would find `name` when required from the package installed at `from` ('' = the project root). */
function resolveIn(packages: Record<string, LockEntry>, from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = `${base === '' ? '' : `${base}/`}node_modules/${name}`;
    if (packages[candidate] !== undefined) return candidate;
    if (base === '') return undefined;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut === -1 ? '' : base.slice(0, cut);
  }
}

/** The repository's overrides with `$name` references replaced by the versions the repository declares. */
function concreteOverrides(repo: Manifest & { devDependencies?: Record<string, string> }): Record<string, string> {
  const declared = { ...repo.devDependencies, ...repo.dependencies };
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(repo.overrides ?? {})) {
    if (typeof value !== 'string') continue;
    out[name] = value.startsWith('$') ? (declared[value.slice(1)] ?? value) : value;
  }
  return out;
}

async function tarballManifest(tarball: string): Promise<Manifest> {
  const result = await run('tar', ['-xzOf', tarball, 'package/package.json'], os.tmpdir());
  if (result.code !== 0) throw new Error(`cannot read package/package.json from ${tarball}:\n${tail(result.stderr)}`);
  return JSON.parse(result.stdout) as Manifest;
}

/**
 * package.json and package-lock.json for a project with `tarball` and `extra` installed, derived from the
 * repository's lockfile. Every package keeps the node_modules place it has in the repository, so each one
 * resolves its dependencies to the same copies as there.
 */
async function projectFiles(
  existing: Manifest,
  tarball: string,
  extra: readonly string[],
): Promise<{ manifest: Manifest; lock: object }> {
  const repo = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as Manifest & { devDependencies?: Record<string, string> };
  const repoLock = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const repoPackages = repoLock.packages;
  const pkg = await tarballManifest(tarball);
  if (pkg.name === undefined || pkg.version === undefined) throw new Error(`${tarball} has no name or version`);
  const ownPath = `node_modules/${pkg.name}`;
  const tarballSpec = `file:${tarball}`;
  const integrity = `sha512-${createHash('sha512').update(await readFile(tarball)).digest('base64')}`;

  // The root's dependencies: what dir already had, the extras, the tarball.
  const rootDeps: Record<string, string> = {};
  const wanted: string[] = [...Object.keys(existing.dependencies ?? {}).filter((n) => n !== pkg.name), ...extra];
  for (const spec of wanted) {
    const { name, version } = parseSpec(spec);
    const entry = repoPackages[`node_modules/${name}`];
    if (entry?.version === undefined) {
      throw new Error(`installTarball: ${name} is not in the repository's package-lock.json, so it is not in the npm cache for an offline install`);
    }
    if (version !== undefined && version !== entry.version && version !== '*' && version !== 'latest') {
      throw new Error(`installTarball: ${spec} asked for, but the repository's package-lock.json has ${name}@${entry.version} (only that is cached)`);
    }
    rootDeps[name] = entry.version;
  }
  rootDeps[pkg.name] = tarballSpec;

  const own: LockEntry = {
    version: pkg.version,
    resolved: tarballSpec,
    integrity,
    ...(pkg.license !== undefined ? { license: pkg.license } : {}),
    ...(pkg.dependencies !== undefined ? { dependencies: pkg.dependencies } : {}),
    ...(pkg.bin !== undefined ? { bin: pkg.bin } : {}),
    ...(pkg.engines !== undefined ? { engines: pkg.engines } : {}),
  };
  const source: Record<string, LockEntry> = { ...repoPackages, [ownPath]: own };
  delete source[''];

  // Walk the dependency graph from the root; `required` = reachable without an optional edge.
  const edgesOf = (entry: LockEntry): Array<{ name: string; optional: boolean }> => [
    ...Object.keys(entry.dependencies ?? {}).map((name) => ({ name, optional: false })),
    ...Object.keys(entry.optionalDependencies ?? {}).map((name) => ({ name, optional: true })),
    ...Object.keys(entry.peerDependencies ?? {}).map((name) => ({ name, optional: entry.peerDependenciesMeta?.[name]?.optional === true })),
  ];
  const reached = new Set<string>();
  const required = new Set<string>();
  const walk = (onlyRequired: boolean): void => {
    const seen = onlyRequired ? required : reached;
    const queue = Object.keys(rootDeps).map((name) => resolveIn(source, '', name)!);
    for (const at of queue) seen.add(at);
    while (queue.length > 0) {
      const at = queue.pop()!;
      for (const edge of edgesOf(source[at]!)) {
        if (onlyRequired && edge.optional) continue;
        const target = resolveIn(source, at, edge.name);
        if (target === undefined) {
          if (edge.optional) continue; // an optional or platform package the repository does not have
          throw new Error(`installTarball: ${at} needs ${edge.name}, which the repository's package-lock.json lacks`);
        }
        if (!seen.has(target)) {
          seen.add(target);
          queue.push(target);
        }
      }
    }
  };
  walk(false);
  walk(true);

  const packages: Record<string, LockEntry> = {
    '': { name: existing.name ?? 'lightwire-install-check', version: existing.version ?? '0.0.0', dependencies: rootDeps },
  };
  for (const at of [...reached].sort()) {
    const { dev: _dev, devOptional: _devOptional, optional: _optional, peer: _peer, ...entry } = source[at]!;
    packages[at] = required.has(at) ? entry : { ...entry, optional: true };
  }

  const names = new Set([...reached].map((at) => at.slice(at.lastIndexOf('node_modules/') + 'node_modules/'.length)));
  const overrides = Object.fromEntries(Object.entries(concreteOverrides(repo)).filter(([name]) => names.has(name)));
  const manifest: Manifest = {
    ...existing,
    name: existing.name ?? 'lightwire-install-check',
    version: existing.version ?? '0.0.0',
    private: true,
    dependencies: rootDeps,
    ...(Object.keys(overrides).length > 0 ? { overrides } : {}),
  };
  return { manifest, lock: { name: manifest.name, version: manifest.version, lockfileVersion: 3, requires: true, packages } };
}

// ---- install ----

export async function installTarball(dir: string, tarball: string, extra: string[] = []): Promise<void> {
  await mkdir(dir, { recursive: true });
  const manifestPath = path.join(dir, 'package.json');
  const existing = existsSync(manifestPath) ? (JSON.parse(await readFile(manifestPath, 'utf8')) as Manifest) : {};
  const { manifest, lock } = await projectFiles(existing, path.resolve(tarball), extra);
  await writeFile(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  await writeFile(path.join(dir, 'package-lock.json'), `${JSON.stringify(lock, null, 2)}\n`);

  const result = await runNpm(['ci', '--offline', '--no-audit', '--no-fund', '--loglevel=error'], dir);
  if (result.code === 0) return;
  const output = `${result.stderr}\n${result.stdout}`;
  if (/ENOTCACHED|only-if-cached/.test(output)) {
    const cache = (await runNpm(['config', 'get', 'cache'], dir)).stdout.trim() || '(the npm cache)';
    const missing = [...output.matchAll(/request to (\S+) failed: cache mode is 'only-if-cached'/g)].map((m) => m[1]);
    throw new Error(
      `offline install in ${dir}: ${missing.length > 0 ? missing.join(', ') : 'a package'} is not in the npm cache ${cache}. ` +
        'Run `npm ci` online first (it fills the cache; .ci/run does).\n' +
        tail(output),
    );
  }
  throw new Error(`npm ci --offline in ${dir} (${[tarball, ...extra].join(' ')}) failed (exit ${result.code}):\n${tail(output)}`);
}

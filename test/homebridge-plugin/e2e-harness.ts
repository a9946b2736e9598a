// End-to-end pieces: the packed package installed as a Homebridge plugin, a virtual fleet in a child process
// (the simulator of that same package, with its loopback control endpoint), Homebridge 2 started
// headless in insecure mode, and a small HAP-over-plain-HTTP client (`-I` lets it in with the pin).
//
// Homebridge, HAP and mDNS (ciao) listen on every address and multicast: they may only run inside a private
// network namespace. `assertPrivateNetwork()` refuses to go on anywhere else.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { until } from '../helpers/wait.js';

export const REPO_ROOT = path.resolve(__dirname, '../..');
export const PIN = '031-45-154';

/** Throws unless the only network interface is loopback (inside `unshare --net`). */
export function assertPrivateNetwork(): void {
  const names = Object.keys(os.networkInterfaces());
  if (names.length !== 1 || names[0] !== 'lo') {
    throw new Error(
      `Refusing to start Homebridge: this process sees the network interfaces [${names.join(', ')}], not just lo. ` +
        'Homebridge, HAP and mDNS listen on all addresses and multicast, so the Homebridge end-to-end tests run only in a ' +
        'private network namespace; `npm test -- test/homebridge-plugin/e2e.test.ts` enters one (scripts/test.sh).',
    );
  }
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A child process whose output is kept (for failure messages) and that is killed on close. */
export class Child {
  output = '';
  private readonly exited: Promise<number | null>;

  constructor(
    readonly name: string,
    readonly proc: ChildProcess,
  ) {
    proc.stdout?.on('data', (d: Buffer) => (this.output += d.toString()));
    proc.stderr?.on('data', (d: Buffer) => (this.output += d.toString()));
    this.exited = new Promise((resolve) => proc.once('exit', (code) => resolve(code)));
  }

  get running(): boolean {
    return this.proc.exitCode === null && this.proc.signalCode === null;
  }

  tail(lines = 40): string {
    return this.output.trim().split('\n').slice(-lines).join('\n');
  }

  waitFor(re: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
    return until(
      () => {
        const m = re.exec(this.output);
        if (!m && !this.running) throw new Error(`${this.name} exited (${this.proc.exitCode}) before printing ${re}:\n${this.tail()}`);
        return m;
      },
      { timeoutMs, everyMs: 20, what: () => `${this.name} to print ${re}:\n${this.tail()}` },
    );
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code (null when killed by a signal). */
  async stop(graceMs = 3000): Promise<number | null> {
    if (this.running) {
      this.proc.kill('SIGTERM');
      const timer = setTimeout(() => this.proc.kill('SIGKILL'), graceMs);
      const code = await this.exited;
      clearTimeout(timer);
      return code;
    }
    return this.exited;
  }
}

export interface FleetProcess {
  readonly child: Child;
  /** The discovery port the lights answer on. */
  readonly port: number;
  /** The control endpoint base, e.g. http://127.0.0.1:41234 */
  readonly controlUrl: string;
}

/**
 * N default virtual lights and `extra` ones (fleet-file light entries) (the package's own simulator, loaded from the installed package through its public
 * `homebridge-lightwire/simulator` entry) on a free port, with the loopback control endpoint, in a child process.
 */
export async function startFleetProcess(pluginDir: string, lights: number, extra: readonly Record<string, unknown>[] = []): Promise<FleetProcess> {
  const script = `
    const { Fleet, defaultFleet, startControlServer } = require(require.resolve('homebridge-lightwire/simulator', { paths: [${JSON.stringify(pluginDir)}] }));
    (async () => {
      const input = defaultFleet(${lights});
      input.lights.push(...${JSON.stringify(extra)});
      const fleet = new Fleet(input, { port: 0 });
      await fleet.start();
      const control = await startControlServer(fleet, { port: 0 });
      process.stdout.write('fleet port=' + fleet.port + ' control=' + control.url + '\\n');
      const stop = async () => { await control.close(); await fleet.stop(); process.exit(0); };
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
    })().catch((err) => { process.stderr.write(String(err && err.stack || err) + '\\n'); process.exit(1); });`;
  // In the plugin folder: from the repository, `homebridge-lightwire` would resolve to the repository itself (a
  // package finds itself by name), whose dist/ another test's `npm pack` may be rebuilding at that moment.
  const proc = spawn(process.execPath, ['-e', script], { cwd: pluginDir, stdio: ['ignore', 'pipe', 'pipe'] });
  const child = new Child('virtual fleet', proc);
  const m = await child.waitFor(/fleet port=(\d+) control=(http:\/\/127\.0\.0\.1:\d+)/, 15000);
  return { child, port: Number(m[1]), controlUrl: m[2]! };
}

export interface HomebridgeProcess {
  readonly child: Child;
  readonly hap: HapClient;
  readonly storage: string;
  /** performance.now() when the process was spawned. */
  readonly spawnedAt: number;
}

/**
 * Homebridge 2 headless, insecure (-I), with a fresh storage folder and only our plugin folder; `bridge` adds to the
 * bridge block (its `matter` block, say).
 */
export async function startHomebridge(pluginModules: string, platform: Record<string, unknown>, bridge: Record<string, unknown> = {}): Promise<HomebridgeProcess> {
  const storage = await mkdtemp(path.join(os.tmpdir(), 'lightwire-hb-storage-'));
  await mkdir(storage, { recursive: true });
  const port = await freePort();
  const config = {
    bridge: { name: 'Lightwire E2E', username: '0E:42:1C:77:10:01', port, pin: PIN, advertiser: 'ciao', bind: ['lo'], ...bridge },
    accessories: [],
    platforms: [{ platform: 'Lightwire', ...platform }],
  };
  await writeFile(path.join(storage, 'config.json'), JSON.stringify(config, null, 2));
  const bin = path.join(REPO_ROOT, 'node_modules/homebridge/bin/homebridge.js');
  const spawnedAt = performance.now();
  const proc = spawn(process.execPath, [bin, '-I', '-Q', '-U', storage, '-P', pluginModules, '--strict-plugin-resolution'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, HOMEBRIDGE_NO_UPDATE_CHECK: '1' },
  });
  return { child: new Child('homebridge', proc), hap: new HapClient(port), storage, spawnedAt };
}

// ---- HAP over plain HTTP ----

export interface HapCharacteristic {
  readonly iid: number;
  readonly type: string;
  readonly value?: unknown;
  readonly perms: readonly string[];
  readonly minValue?: number;
  readonly maxValue?: number;
}

export interface HapService {
  readonly iid: number;
  readonly type: string;
  readonly characteristics: readonly HapCharacteristic[];
  readonly subtype?: string;
}

export interface HapAccessory {
  readonly aid: number;
  readonly services: readonly HapService[];
}

/** Apple's short form of a HAP type: "00000043-0000-1000-8000-0026BB765291" -> "43". */
export function shortType(type: string): string {
  const m = /^([0-9A-F]{8})-0000-1000-8000-0026BB765291$/i.exec(type);
  return (m ? m[1]!.replace(/^0+/, '') : type).toUpperCase();
}

/** HAP types by name (https://github.com/homebridge/HAP-NodeJS/blob/latest/src/lib/definitions). */
export const HAP_TYPE = Object.freeze({
  AccessoryInformation: '3E',
  Lightbulb: '43',
  Switch: '49',
  On: '25',
  Brightness: '8',
  Hue: '13',
  Saturation: '2F',
  ColorTemperature: 'CE',
  Name: '23',
  SerialNumber: '30',
  Model: '21',
});

export interface HapResponse {
  readonly status: number;
  readonly body: string;
  readonly ms: number;
}

export class HapClient {
  /** Keep-alive connection for sequential reads; writes that must not queue use `fresh: true`. */
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

  constructor(readonly port: number) {}

  request(method: 'GET' | 'PUT', urlPath: string, body?: unknown, options: { fresh?: boolean; timeoutMs?: number } = {}): Promise<HapResponse> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const started = performance.now();
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: this.port,
          method,
          path: urlPath,
          agent: options.fresh ? false : this.agent,
          headers: {
            authorization: PIN,
            ...(payload ? { 'content-type': 'application/hap+json', 'content-length': payload.length } : {}),
          },
          timeout: options.timeoutMs ?? 10000,
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, ms: performance.now() - started }));
        },
      );
      req.on('timeout', () => req.destroy(new Error(`HAP ${method} ${urlPath} timed out`)));
      req.on('error', reject);
      req.end(payload);
    });
  }

  async accessories(): Promise<HapAccessory[]> {
    const res = await this.request('GET', '/accessories');
    if (res.status !== 200) throw new Error(`GET /accessories answered ${res.status}: ${res.body}`);
    return (JSON.parse(res.body) as { accessories: HapAccessory[] }).accessories;
  }

  /** PUT /characteristics; `statuses` per aid.iid when the answer is 207. */
  async write(writes: readonly { aid: number; iid: number; value: unknown }[], options: { fresh?: boolean } = {}): Promise<HapResponse & { statuses: number[] }> {
    const res = await this.request('PUT', '/characteristics', { characteristics: writes }, options);
    const statuses = res.status === 207 ? (JSON.parse(res.body) as { characteristics: { status: number }[] }).characteristics.map((c) => c.status) : [];
    return { ...res, statuses };
  }

  async read(ids: readonly string[]): Promise<{ aid: number; iid: number; value?: unknown; status?: number }[]> {
    const res = await this.request('GET', `/characteristics?id=${ids.join(',')}`);
    if (res.status !== 200 && res.status !== 207) throw new Error(`GET /characteristics answered ${res.status}: ${res.body}`);
    return (JSON.parse(res.body) as { characteristics: { aid: number; iid: number; value?: unknown; status?: number }[] }).characteristics;
  }

  close(): void {
    this.agent.destroy();
  }
}

/** The accessories of lights by serial, with their services' characteristics found by type. */
export class HapIndex {
  readonly bySerial = new Map<string, HapAccessory>();

  constructor(readonly accessories: readonly HapAccessory[]) {
    for (const accessory of accessories) {
      const serial = HapIndex.value(accessory, HAP_TYPE.AccessoryInformation, HAP_TYPE.SerialNumber);
      if (typeof serial === 'string') this.bySerial.set(serial, accessory);
    }
  }

  static value(accessory: HapAccessory, service: string, characteristic: string): unknown {
    const s = accessory.services.find((x) => shortType(x.type) === service);
    return s?.characteristics.find((c) => shortType(c.type) === characteristic)?.value;
  }

  accessory(serial: string): HapAccessory {
    const a = this.bySerial.get(serial);
    if (a === undefined) throw new Error(`no HAP accessory with serial ${serial}`);
    return a;
  }

  /** The aid and iid of a characteristic; `name` picks among services of one type by their Name. */
  id(serial: string, service: string, characteristic: string, name?: RegExp): { aid: number; iid: number } {
    const accessory = this.accessory(serial);
    const services = accessory.services.filter((s) => shortType(s.type) === service);
    const chosen = name === undefined ? services[0] : services.find((s) => name.test(String(s.characteristics.find((c) => shortType(c.type) === HAP_TYPE.Name)?.value)));
    const c = chosen?.characteristics.find((x) => shortType(x.type) === characteristic);
    if (c === undefined) throw new Error(`${serial} has no ${characteristic} in a ${service} service${name ? ` named ${name}` : ''}`);
    return { aid: accessory.aid, iid: c.iid };
  }
}

/** Polls the bridge until it lists `count` light accessories (the bridge itself excluded). */
export async function untilPublished(hb: HomebridgeProcess, count: number, timeoutMs: number): Promise<{ index: HapIndex; ms: number }> {
  let last = 'no answer yet';
  return until(
    async () => {
      if (!hb.child.running) throw new Error(`homebridge exited (${hb.child.proc.exitCode}):\n${hb.child.tail()}`);
      try {
        const index = new HapIndex(await hb.hap.accessories());
        // The bridge's own AccessoryInformation carries a serial too (its username).
        const lights = [...index.bySerial.keys()].filter((s) => /^[0-9a-f]{12}$/.test(s)).length;
        last = `${lights} light accessories`;
        return lights >= count ? { index, ms: performance.now() - hb.spawnedAt } : null;
      } catch (err) {
        last = (err as Error).message;
        return null;
      }
    },
    { timeoutMs, everyMs: 25, what: () => `Homebridge to publish ${count} lights (${last}):\n${hb.child.tail()}` },
  );
}

/** The fleet's control endpoint. */
export async function control(fleet: FleetProcess, method: 'GET' | 'PATCH', urlPath: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${fleet.controlUrl}${urlPath}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  if (!res.ok) throw new Error(`${method} ${urlPath} answered ${res.status}: ${await res.text()}`);
  return res.json();
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

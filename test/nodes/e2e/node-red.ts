// End-to-end rig: the packed tarball installed into a fresh Node-RED user directory (offline, from the npm cache),
// Node-RED started headless on 127.0.0.1, a separate virtual fleet in a child process, a LAN reader that asks the
// lights themselves over the LIFX protocol, and a listener on the editor's comms socket for debug messages.
// Everything listens on loopback; the suite runs inside `unshare --net` (packets never leave this machine).

import { spawn, type ChildProcess } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { decode, encode, hsbkFromWire, type Hsbk } from '../../../core/protocol/index.js';
import { installTarball, packTarball, REPO_ROOT } from '../../helpers/packed.js';
import { until } from '../../helpers/wait.js';

export type FlowNode = Record<string, unknown> & { id: string; type: string };

export const EXAMPLE_FLOWS = path.join(REPO_ROOT, 'examples', 'flows.json');

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

// ---- the package, installed once per mocha process ----

let installed: Promise<string> | undefined;

/** A directory whose node_modules holds the packed tarball and node-red (shared by every Node-RED started here). */
export function installedModules(): Promise<string> {
  installed ??= (async () => {
    const tarball = await packTarball();
    const dir = await mkdtemp(path.join(os.tmpdir(), 'lightwire-nr-install-'));
    await installTarball(dir, tarball, ['node-red']);
    return dir;
  })();
  return installed;
}

// ---- the separate fleet ----

export interface FleetChild {
  readonly port: number;
  readonly controlUrl: string;
  stop(): Promise<void>;
}

export async function startFleetChild(count: number): Promise<FleetChild> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'fleet-child.ts'), String(count)], {
    cwd: REPO_ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the fleet did not start within 15 s: ${stderr}`)), 15_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        resolve(out.slice(0, nl));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the fleet exited with ${code}: ${stderr}`));
    });
  });
  const { port, controlUrl } = JSON.parse(line) as { port: number; controlUrl: string };
  return { port, controlUrl, stop: () => stopChild(child) };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

// ---- Node-RED ----

export interface NodeRed {
  readonly url: string;
  readonly userDir: string;
  readonly log: () => string;
  /** The runtime's process id (bench/node-red.ts reads its RSS). */
  readonly pid: number;
  /** An admin API request (JSON in and out). */
  api(method: string, route: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: unknown }>;
  stop(): Promise<void>;
}

export interface NodeRedOptions {
  readonly flows: readonly FlowNode[];
  /** Extra settings, written as JSON into settings.js. */
  readonly settings?: Record<string, unknown>;
  /**
   * A directory whose node_modules holds node-red and the node packages to load (default: the packed package and
   * node-red, installedModules()); bench/node-red.ts gives the peer's here.
   */
  readonly modules?: string;
}

/** Starts Node-RED headless in a fresh user directory over the installed package. */
export async function startNodeRed(options: NodeRedOptions): Promise<NodeRed> {
  const modules = options.modules ?? (await installedModules());
  const userDir = await mkdtemp(path.join(os.tmpdir(), 'lightwire-nr-user-'));
  await mkdir(userDir, { recursive: true });
  await symlink(path.join(modules, 'node_modules'), path.join(userDir, 'node_modules'), 'dir');
  await writeFile(path.join(userDir, 'package.json'), '{"name":"node-red-project","private":true}\n');
  const port = await freePort();
  const settings = {
    uiHost: '127.0.0.1',
    uiPort: port,
    flowFile: 'flows.json',
    credentialSecret: false,
    telemetry: { enabled: false, updateNotification: false },
    diagnostics: { enabled: false },
    editorTheme: { projects: { enabled: false }, tours: false },
    externalModules: { palette: { allowInstall: false } },
    debugMaxLength: 10_000_000,
    logging: { console: { level: 'info', metrics: false, audit: false } },
    ...options.settings,
  };
  await writeFile(path.join(userDir, 'settings.js'), `module.exports = ${JSON.stringify(settings, null, 2)};\n`);
  await writeFile(path.join(userDir, 'flows.json'), JSON.stringify(options.flows, null, 2));
  const red = path.join(modules, 'node_modules', 'node-red', 'red.js');
  const child = spawn(process.execPath, [red, '-u', userDir, '--settings', path.join(userDir, 'settings.js')], {
    cwd: userDir,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_RED_ENABLE_PROJECTS: 'false' },
  });
  let log = '';
  child.stdout!.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  const api: NodeRed['api'] = async (method, route, body, headers = {}) => {
    const res = await fetch(`${url}${route}`, {
      method,
      headers: { accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body: parsed };
  };
  try {
    await until(
      async () => {
        if (child.exitCode !== null) throw new Error(`Node-RED exited with ${child.exitCode}:\n${log}`);
        // Any answer will do: with adminAuth on, /settings answers 401.
        return (await fetch(`${url}/settings`).catch(() => null)) !== null;
      },
      { timeoutMs: 20_000, what: 'Node-RED admin API up', everyMs: 50 },
    );
    await until(() => log.includes('Started flows'), { timeoutMs: 20_000, what: 'Node-RED started its flows', everyMs: 20 });
  } catch (err) {
    await stopChild(child);
    throw new Error(`${(err as Error).message}\n--- Node-RED log ---\n${log}`);
  }
  return {
    url,
    userDir,
    log: () => log,
    pid: child.pid!,
    api,
    stop: async () => {
      await stopChild(child);
      await rm(userDir, { recursive: true, force: true });
    },
  };
}

/** The example flows with the config node pointed at a separate fleet instead of its own virtual lights. */
export function exampleAgainst(flows: readonly FlowNode[], fleetPort: number, extra: Record<string, unknown> = {}): FlowNode[] {
  return flows.map((n) =>
    n.type === 'lightwire-config' ? { ...n, virtual: false, broadcast: '127.255.255.255', lanPort: fleetPort, ...extra } : { ...n },
  );
}

// ---- the editor's comms socket: debug messages ----

export interface DebugMessage {
  readonly id: string;
  readonly name: string;
  readonly topic?: string;
  readonly format: string;
  /** The debug node's output, decoded from JSON when it is an object or array. */
  readonly value: unknown;
  readonly at: number;
}

export interface Comms {
  readonly messages: DebugMessage[];
  waitFor(predicate: (m: DebugMessage) => boolean, ms: number, what: string): Promise<DebugMessage>;
  close(): void;
}

export async function openComms(red: NodeRed): Promise<Comms> {
  const ws = new WebSocket(`${red.url.replace('http', 'ws')}/comms`);
  const messages: DebugMessage[] = [];
  ws.addEventListener('message', (event) => {
    const batch = JSON.parse(String(event.data)) as Array<{ topic: string; data: Record<string, unknown> }>;
    for (const item of Array.isArray(batch) ? batch : [batch]) {
      if (item.topic !== 'debug') continue;
      const d = item.data;
      let value: unknown = d.msg;
      if (typeof d.msg === 'string' && /^(Object|array|error)/i.test(String(d.format))) {
        try {
          value = JSON.parse(d.msg);
        } catch {
          // leave the text
        }
      }
      messages.push({ id: String(d.id), name: String(d.name ?? ''), topic: d.topic as string | undefined, format: String(d.format), value, at: performance.now() });
    }
  });
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () => resolve(), { once: true });
    ws.addEventListener('error', () => reject(new Error('cannot open the comms socket')), { once: true });
  });
  ws.send(JSON.stringify({ subscribe: 'debug' }));
  return {
    messages,
    waitFor: (predicate, ms, what) => until(() => messages.find(predicate), { timeoutMs: ms, what, everyMs: 5 }),
    close: () => ws.close(),
  };
}

// ---- asking the lights themselves ----

export interface LanState {
  readonly power: 'on' | 'off';
  readonly color: Hsbk;
  readonly label: string;
}

/** Reads lights over the LIFX LAN protocol (GetColor -> LightState), from its own socket on 127.0.0.1. */
export class LanReader {
  private socket: Socket | null = null;
  private sequence = 0;
  private readonly pending = new Map<number, (state: LanState) => void>();
  private readonly source = 0x4c57_4531;

  async open(): Promise<void> {
    const socket = createSocket('udp4');
    socket.on('message', (msg) => {
      const result = decode(msg);
      if (!result.ok || result.packet.name !== 'LightState') return;
      const p = result.packet.payload as { color: Parameters<typeof hsbkFromWire>[0]; power: number; label: string };
      this.pending.get(result.packet.header.sequence)?.({ power: p.power > 0 ? 'on' : 'off', color: hsbkFromWire(p.color), label: p.label });
    });
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
    this.socket = socket;
  }

  /** The light's state now; rejects after `ms` without an answer. */
  read(address: string, port: number, serial: string, ms = 1000): Promise<LanState> {
    const sequence = (this.sequence = (this.sequence + 1) % 256);
    const datagram = encode({ name: 'GetColor', header: { source: this.source, sequence, target: serial, resRequired: true }, payload: {} });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(sequence);
        reject(new Error(`${serial} at ${address}:${port} did not answer GetColor`));
      }, ms);
      this.pending.set(sequence, (state) => {
        clearTimeout(timer);
        this.pending.delete(sequence);
        resolve(state);
      });
      this.socket!.send(datagram, port, address);
    });
  }

  close(): void {
    this.socket?.close();
    this.socket = null;
  }
}

export interface FleetLight {
  readonly serial: string;
  readonly label: string;
  readonly address: string;
  readonly port: number;
  readonly received: { readonly byName: Record<string, number> };
}

/** The fleet's lights as its control endpoint lists them (where each lives, what it received). */
export async function fleetLights(controlUrl: string): Promise<FleetLight[]> {
  const res = await fetch(`${controlUrl}/lights`);
  if (!res.ok) throw new Error(`GET ${controlUrl}/lights: ${res.status}`);
  return (await res.json()) as FleetLight[];
}

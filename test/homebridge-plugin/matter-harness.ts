// Matter end-to-end pieces: loopback made fit for Matter (multicast and IPv6, inside the private network namespace
// only), Homebridge's commissioning data, and the controller process (matter-controller.ts) driven by JSON lines.

import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { until } from '../helpers/wait.js';
import { Child, REPO_ROOT, assertPrivateNetwork } from './e2e-harness.js';

/** Matter device type ids (Matter Device Library Specification 1.4). */
export const MATTER_DEVICE_TYPE = Object.freeze({
  OnOffLight: 0x0100,
  DimmableLight: 0x0101,
  OnOffPlugInUnit: 0x010a,
  ColorTemperatureLight: 0x010c,
  ExtendedColorLight: 0x010d,
  LightSensor: 0x0106,
});

/**
 * Matter needs IPv6 and multicast; a new namespace's loopback has neither switched on for sure. Changing them
 * anywhere but a private namespace would touch the machine's own loopback: refused there (assertPrivateNetwork).
 */
export function prepareMatterLoopback(): void {
  assertPrivateNetwork();
  execFileSync('ip', ['link', 'set', 'lo', 'multicast', 'on']);
  const sysctl = '/proc/sys/net/ipv6/conf/lo/disable_ipv6';
  if (readFileSync(sysctl, 'utf8').trim() !== '0') writeFileSync(sysctl, '0');
  const lo = os.networkInterfaces().lo ?? [];
  if (!lo.some((a) => a.family === 'IPv6' && a.address === '::1')) throw new Error('loopback has no ::1 after enabling IPv6: Matter cannot run here');
}

export interface Commissioning {
  readonly passcode: number;
  readonly discriminator: number;
}

/** The passcode and discriminator Homebridge writes to <storage>/matter/<bridge>/commissioning.json once Matter is up. */
export async function commissioningOf(storage: string, timeoutMs: number, running: () => boolean): Promise<Commissioning> {
  return until(
    async () => {
      if (!running()) throw new Error('homebridge exited before its Matter bridge was up');
      const root = path.join(storage, 'matter');
      const dirs = await readdir(root).catch(() => [] as string[]);
      for (const dir of dirs) {
        const text = await readFile(path.join(root, dir, 'commissioning.json'), 'utf8').catch(() => undefined);
        if (text === undefined) continue;
        const data = JSON.parse(text) as { passcode?: number; discriminator?: number };
        if (typeof data.passcode === 'number' && typeof data.discriminator === 'number') return { passcode: data.passcode, discriminator: data.discriminator };
      }
      return null;
    },
    { timeoutMs, everyMs: 50, what: () => `Homebridge to write ${storage}/matter/*/commissioning.json` },
  );
}

export interface MatterDevice {
  readonly endpoint: number;
  readonly deviceType: number;
  readonly serial: string;
  readonly label: string;
  readonly reachable: boolean;
}

type Answer = Record<string, unknown> & { readonly ok: boolean; readonly error?: string };

/** The controller process: one request at a time or several, answered by id. */
export class MatterController {
  private nextId = 1;
  private readonly waiting = new Map<number, (answer: Answer) => void>();
  private buffer = '';

  private constructor(readonly child: Child) {
    child.proc.stdout?.on('data', (d: Buffer) => {
      this.buffer += d.toString();
      let newline: number;
      while ((newline = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, newline);
        this.buffer = this.buffer.slice(newline + 1);
        if (!line.startsWith('{')) continue;
        const answer = JSON.parse(line) as Answer & { id?: number };
        if (answer.id !== undefined) {
          this.waiting.get(answer.id)?.(answer);
          this.waiting.delete(answer.id);
        }
      }
    });
  }

  static async start(): Promise<MatterController> {
    const storage = await mkdtemp(path.join(os.tmpdir(), 'lightwire-matter-controller-'));
    const script = path.join(REPO_ROOT, 'test/homebridge-plugin/matter-controller.ts');
    // No arguments after the script: matter.js would read `--name value` ones as its settings.
    const proc = spawn(process.execPath, ['--import', 'tsx', script], {
      cwd: REPO_ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, LIGHTWIRE_MATTER_STORAGE: storage, MATTER_LOG_LEVEL: process.env.LIGHTWIRE_MATTER_LOG ?? 'error' },
    });
    const child = new Child('matter controller', proc);
    await child.waitFor(/"ready":true/, 30000);
    return new MatterController(child);
  }

  async request(op: string, params: Record<string, unknown> = {}, timeoutMs = 20000): Promise<Answer> {
    const id = this.nextId++;
    const answer = new Promise<Answer>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`matter controller: ${op} not answered within ${timeoutMs} ms:\n${this.child.tail()}`));
      }, timeoutMs);
      this.waiting.set(id, (a) => {
        clearTimeout(timer);
        resolve(a);
      });
    });
    this.child.proc.stdin?.write(`${JSON.stringify({ id, op, ...params })}\n`);
    return answer;
  }

  /** Like request, but throws on an error answer. */
  async must(op: string, params: Record<string, unknown> = {}, timeoutMs?: number): Promise<Answer> {
    const answer = await this.request(op, params, timeoutMs);
    if (!answer.ok) throw new Error(`matter controller: ${op} ${JSON.stringify(params)} failed: ${answer.error}`);
    return answer;
  }

  async devices(): Promise<MatterDevice[]> {
    return (await this.must('devices')).devices as MatterDevice[];
  }

  async close(): Promise<void> {
    if (this.child.running) await this.request('close', {}, 5000).catch(() => undefined);
    await this.child.stop();
  }
}

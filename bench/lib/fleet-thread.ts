// The paint-fleet worker seen from the benchmark's side (bench/paint.ts, bench/scene.ts): the fleet runs in a worker
// thread of its own (paint-fleet.ts) and says when the last watched light shows what it was asked to; and a service
// over it that knows every light as a running service does.

import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { LightClient, LightService, type LightServiceOptions } from '../../core/index.js';
import type { FleetInput } from '../../core/simulator/index.js';
import type { PaintFleetReply, PaintFleetRequest, PaintTarget } from './paint-fleet.js';

export const epochNow = (): number => performance.timeOrigin + performance.now();
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
/**
 * How long a light has no message before a call: it is quiet (transport pacing: a light that had none for a second
 * takes a burst at once), as a light is when someone paints it; the reads after each reset would otherwise space the
 * call's messages out (about 66 ms each, the vendor's 20 messages a second).
 */
export const QUIET_MS = 1100;
export const serialOf = (i: number): string => `d073d52${i.toString(16).padStart(5, '0')}`;

export class FleetThread {
  private readonly worker: Worker;
  private waiters: ((m: PaintFleetReply) => void)[] = [];
  private shownAt: number | undefined;
  private onShown: (() => void) | undefined;

  constructor(input: FleetInput) {
    this.worker = new Worker(path.join(__dirname, 'paint-fleet.ts'), { workerData: input, execArgv: process.execArgv });
    this.worker.on('message', (m: PaintFleetReply) => {
      if (m.type === 'shown') {
        this.shownAt = m.atEpochMs;
        this.onShown?.();
        return;
      }
      this.waiters.shift()?.(m);
    });
  }

  next(): Promise<PaintFleetReply> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  async ask(m: PaintFleetRequest): Promise<PaintFleetReply> {
    const reply = this.next();
    this.worker.postMessage(m);
    return reply;
  }

  async watch(targets: readonly PaintTarget[]): Promise<void> {
    this.shownAt = undefined;
    await this.ask({ type: 'watch', targets });
  }

  /** When the last watched light showed its target (epoch ms), waiting at most `capMs`. */
  shown(capMs: number): Promise<number | undefined> {
    if (this.shownAt !== undefined) return Promise.resolve(this.shownAt);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(undefined), capMs);
      this.onShown = () => {
        clearTimeout(timer);
        this.onShown = undefined;
        resolve(this.shownAt);
      };
    });
  }

  async stop(): Promise<void> {
    await this.ask({ type: 'stop' });
    await this.worker.terminate();
  }
}

export async function serviceOn(port: number, lights: number, options: LightServiceOptions = {}): Promise<{ service: LightService; client: LightClient }> {
  const client = new LightClient({ discovery: { broadcastAddresses: ['127.255.255.255'], port, refreshIntervalMs: 0 } });
  const service = new LightService(client, { ...options, expectLights: lights });
  await service.start();
  await client.waitForLights(lights, 10_000);
  await service.ready;
  // Every light read, its product known: what a running service knows of its lights.
  await Promise.all(client.lights().map((l) => client.refreshInfo(l.serial).then(() => client.refreshState(l.serial))));
  return { service, client };
}

// The dashboard's server-sent event stream: one snapshot when a page connects, then what changed, fed by the light
// service's events (added / changed / offline / online). The page never polls.
//
// Events (each `data:` is JSON):
//   snapshot  {now, lights: PageLight[], scenes}   first, and after every reconnect
//   lights    {now, lights: PageLight[]}            lights that changed since the last flush (FLUSH_MS)
//   seen      {now, seen: {serial: lastSeenAt}}     every TICK_MS: last-seen times that moved (also the heartbeat)
//   scenes    {scenes}                              when the scene list changed
//
// Lights do not tell anyone when the vendor app or a wall switch changes them: the service learns it by reading.
// While at least one page is connected the hub reads every light's state in turn (LIVE_PERIOD_MS per light for
// small fleets, at most LIVE_READS_PER_S reads per second for large ones), so such a change reaches the page
// within about a second. With no page connected nothing extra is sent.
//
// The page lists lights only, as /v1 does: a device that is no light (a LIFX Switch) is left out.
//
// A stream may hold a lease (its page's session): every send renews it, and a send that finds the session gone
// (ended, evicted, expired) ends the stream instead. A page that only watches thus keeps its session (the
// heartbeat sends every TICK_MS), and a session that ended is sent nothing more.

import type { ServerResponse } from 'node:http';
import type { LightView } from '../../index.js';
import { pageLight, pageScenes, type PageLight } from './light-json.js';
import type { DashboardService } from './service.js';

export const FLUSH_MS = 25;
export const TICK_MS = 5000;
/** Each light is read at least this often while a page is open (small fleets). */
export const LIVE_PERIOD_MS = 500;
/** Reads per second at most for the live refresh (large fleets stretch the period instead). */
export const LIVE_READS_PER_S = 100;
/** Deadline of one live read: three missed reads in a row mark a light offline, within a few seconds. */
export const LIVE_READ_TIMEOUT_MS = 1000;
const LIVE_STEP_MS = 50;
/** A page that does not read its stream is dropped past this much unsent data (it reconnects and resyncs). */
export const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
/** The browser's reconnect delay after the stream drops. */
const RETRY_MS = 1000;

const EVENTS = ['added', 'changed', 'offline', 'online'] as const;

/** Renews a stream's session; false once the session is gone. */
export type StreamLease = () => boolean;

export interface EventHubOptions {
  /** Read every light in turn while pages are connected (default true). */
  readonly liveRefresh?: boolean;
  readonly now?: () => number;
}

export class EventHub {
  private readonly clients = new Map<ServerResponse, StreamLease | undefined>();
  private readonly dirty = new Set<string>();
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  private tickTimer: ReturnType<typeof setInterval> | undefined;
  private liveTimer: ReturnType<typeof setInterval> | undefined;
  private liveCursor = 0;
  private liveCredit = 0;
  private readonly seenSent = new Map<string, number>();
  private scenesSent = '';
  private readonly now: () => number;
  private readonly onEvent = (view: LightView): void => this.mark(view.serial);

  constructor(
    private readonly service: DashboardService,
    private readonly options: EventHubOptions = {},
  ) {
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.clients.size;
  }

  /** Takes over a response: event-stream headers, the snapshot, then changes until either side closes or the lease ends. */
  attach(res: ServerResponse, lease?: StreamLease): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      // No proxy buffering: events must arrive as they happen.
      'x-accel-buffering': 'no',
    });
    if (this.clients.size === 0) this.subscribe();
    this.clients.set(res, lease);
    res.on('close', () => this.detach(res));
    const lights = this.service
      .views()
      .filter((v) => v.capabilities.isLight)
      .map((v) => pageLight(v, this.partsOf(v.serial)));
    for (const l of lights) this.seenSent.set(l.serial, l.lastSeenAt);
    const scenes = this.scenes();
    this.scenesSent = JSON.stringify(scenes);
    this.write(res, `retry: ${RETRY_MS}\n\n`);
    this.write(res, frame('snapshot', { now: this.now(), lights, scenes }));
  }

  /** Ends every stream (the server is closing). */
  closeAll(): void {
    for (const res of [...this.clients.keys()]) res.end();
    this.clients.clear();
    this.unsubscribe();
  }

  private detach(res: ServerResponse): void {
    if (!this.clients.delete(res)) return;
    if (this.clients.size === 0) this.unsubscribe();
  }

  private subscribe(): void {
    for (const e of EVENTS) this.service.on(e, this.onEvent);
    this.tickTimer = setInterval(() => this.tick(), TICK_MS);
    if (this.options.liveRefresh !== false) this.liveTimer = setInterval(() => this.liveStep(), LIVE_STEP_MS);
  }

  private unsubscribe(): void {
    for (const e of EVENTS) this.service.off(e, this.onEvent);
    if (this.tickTimer !== undefined) clearInterval(this.tickTimer);
    if (this.liveTimer !== undefined) clearInterval(this.liveTimer);
    if (this.flushTimer !== undefined) clearTimeout(this.flushTimer);
    this.tickTimer = this.liveTimer = this.flushTimer = undefined;
    this.dirty.clear();
  }

  /** The names of a light's parts (a Ceiling's downlight and uplight), for its panel. */
  private partsOf(serial: string): string[] {
    return this.service.parts?.(serial).map((p) => p.name) ?? [];
  }

  private mark(serial: string): void {
    this.dirty.add(serial);
    this.flushTimer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  private flush(): void {
    this.flushTimer = undefined;
    const lights: PageLight[] = [];
    for (const serial of this.dirty) {
      const view = this.service.light(serial);
      if (view === undefined) continue;
      if (!view.capabilities.isLight) {
        // Taken for a light before its product was known, it was sent as one: the page drops it on this record.
        if (this.seenSent.delete(serial)) lights.push(pageLight(view, this.partsOf(serial)));
        continue;
      }
      const light = pageLight(view, this.partsOf(serial));
      this.seenSent.set(serial, light.lastSeenAt);
      lights.push(light);
    }
    this.dirty.clear();
    if (lights.length > 0) this.broadcast(frame('lights', { now: this.now(), lights }));
  }

  /** The heartbeat: last-seen times that moved, and the scene list when it changed. */
  private tick(): void {
    const seen: Record<string, number> = {};
    for (const view of this.service.views()) {
      if (!view.capabilities.isLight) continue;
      if (this.seenSent.get(view.serial) !== view.lastSeenAt) {
        seen[view.serial] = view.lastSeenAt;
        this.seenSent.set(view.serial, view.lastSeenAt);
      }
    }
    this.broadcast(frame('seen', { now: this.now(), seen }));
    const scenes = this.scenes();
    const text = JSON.stringify(scenes);
    if (text !== this.scenesSent) {
      this.scenesSent = text;
      this.broadcast(frame('scenes', { scenes }));
    }
  }

  /** Reads the next lights in turn: each light every LIVE_PERIOD_MS, or LIVE_READS_PER_S in all. */
  private liveStep(): void {
    if (!this.service.started) return;
    const views = this.service.views();
    const n = views.length;
    if (n === 0) return;
    const perS = Math.min(LIVE_READS_PER_S, (n * 1000) / LIVE_PERIOD_MS);
    this.liveCredit = Math.min(this.liveCredit + (perS * LIVE_STEP_MS) / 1000, n);
    while (this.liveCredit >= 1) {
      this.liveCredit -= 1;
      const view = views[this.liveCursor++ % n]!;
      void this.service.refreshLight(view.serial, { timeoutMs: LIVE_READ_TIMEOUT_MS }).catch(() => undefined);
    }
    this.liveCursor %= n;
  }

  private scenes(): ReturnType<typeof pageScenes> {
    try {
      return pageScenes(this.service.listScenes());
    } catch {
      return [];
    }
  }

  private broadcast(text: string): void {
    // write() may drop a client: deleting the current entry is safe while iterating a Map.
    for (const res of this.clients.keys()) this.write(res, text);
  }

  private write(res: ServerResponse, text: string): void {
    const lease = this.clients.get(res);
    if (lease !== undefined && !lease()) {
      this.detach(res);
      res.end();
      return;
    }
    if (res.writableLength > MAX_BUFFERED_BYTES) {
      this.detach(res);
      res.destroy();
      return;
    }
    res.write(text);
  }
}

function frame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

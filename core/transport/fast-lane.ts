// Fast mode: messages with no ack and no reply, queued for their light's pacing turn and sent at once when the light
// is quiet. While one waits, a newer message for the same light and part (coalesce key) replaces its payload and
// keeps its place: latest wins, so a flood of requests costs one object per light and part, not one datagram each.

import { LightwireError } from '../errors.js';
import type { MessageName } from '../protocol/index.js';
import type { PacedJob, Pacer } from './pacer.js';
import type { DeviceAddress, FastObserver, RequesterStats } from './request-types.js';

/** What the fast lane needs from its requester: a fast message's datagram, and the socket. */
export interface FastWire {
  /** The datagram of a message to a light with the light's next sequence number; throws when the payload does not encode. */
  datagram(device: DeviceAddress, name: MessageName, payload: unknown): Buffer;
  /** Hands a datagram to the socket; a failed send is a lost packet. */
  post(datagram: Buffer, device: DeviceAddress): void;
}

/**
 * A fast message waiting for its light's turn (pacer job). Its payload is replaced while it waits (latest wins per
 * light and part), so it is encoded, with its sequence number, only when it goes out.
 */
export class FastJob implements PacedJob {
  cancelled = false;
  /** Handed to the socket (or dropped as invalid): a later message for its part is a new job. */
  sent = false;
  /** Took its turn when queued: sent at once, or in the batch being queued (Requester.batch). */
  turnTaken = false;
  part: string | undefined = undefined;
  /** fire() callers waiting for this message to be handed to the socket; created on first use. */
  waiters: { resolve: () => void; reject: (err: Error) => void }[] | undefined = undefined;
  /** Its datagram when encoded ahead of its turn (prepare(): a batch's), or what encoding it threw. */
  datagram: Buffer | Error | undefined = undefined;

  constructor(
    private readonly lane: FastLane,
    readonly device: DeviceAddress,
    public name: MessageName,
    public payload: unknown,
    public observer: FastObserver | undefined,
  ) {}

  prepare(): void {
    this.datagram = this.lane.encode(this);
  }

  run(): void {
    this.lane.send(this);
  }
}

export class FastLane {
  /** The job queue() last gave a newer payload (post() tells a replacement from a job of its own). */
  replaced: FastJob | undefined = undefined;
  /** fire() callers still waiting for their message to go out (rejected on close). */
  private readonly unsentFires = new Set<FastJob>();

  constructor(
    private readonly pacer: Pacer,
    private readonly wire: FastWire,
    private readonly stats: RequesterStats,
  ) {}

  /** Queues a message (or gives the one waiting for its light and part this payload). */
  queue(device: DeviceAddress, name: MessageName, payload: unknown, coalesceKey: string | false | undefined, observer: FastObserver | undefined): FastJob {
    const part = coalesceKey === false ? undefined : (coalesceKey ?? name);
    if (part !== undefined) {
      const waiting = this.pacer.waitingFor(device.serial, part);
      if (waiting instanceof FastJob) {
        waiting.name = name;
        waiting.payload = payload;
        waiting.observer = observer;
        this.replaced = waiting;
        return waiting;
      }
    }
    const job = new FastJob(this, device, name, payload, observer);
    // A message that goes out at once (or in this batch) is the caller's to account for (post() says `sent`): only
    // one that waits tells its observer when it goes.
    if (this.pacer.schedule(device.serial, job, part)) {
      job.observer = undefined;
      job.turnTaken = true;
    }
    return job;
  }

  /** Resolves when the job is handed to the socket (at once when it was). */
  whenSent(job: FastJob): Promise<void> {
    if (job.sent) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      (job.waiters ??= []).push({ resolve, reject });
      this.unsentFires.add(job);
    });
  }

  /** A fast message's datagram: its newest payload, with the light's next sequence number; what it throws, returned. */
  encode(job: FastJob): Buffer | Error {
    try {
      return this.wire.datagram(job.device, job.name, job.payload);
    } catch (err) {
      return err as Error;
    }
  }

  /** A fast message's turn: encoded now (unless its batch did, just before) and handed to the socket. */
  send(job: FastJob): void {
    job.sent = true;
    const waiters = job.waiters;
    job.waiters = undefined;
    if (waiters !== undefined) this.unsentFires.delete(job);
    const datagram = job.datagram ?? this.encode(job);
    job.datagram = undefined;
    if (datagram instanceof Error) {
      // Planned payloads always fit; one that does not is dropped here rather than thrown into a timer.
      this.stats.invalid++;
      if (waiters !== undefined) for (const w of waiters) w.reject(datagram);
      return;
    }
    this.stats.sent++;
    this.wire.post(datagram, job.device);
    if (waiters !== undefined) for (const w of waiters) w.resolve();
    job.observer?.sent(job.device, job.name, job.payload);
  }

  /** Rejects every fire() still waiting (CLIENT_STOPPED); their jobs will not run. */
  close(): void {
    for (const job of this.unsentFires) {
      job.cancelled = true;
      for (const w of job.waiters ?? []) w.reject(new LightwireError('CLIENT_STOPPED', {}));
      job.waiters = undefined;
    }
    this.unsentFires.clear();
  }
}

// AmbientLightReader: one job, reading the ambient light sensor of the lights that have one
// (SensorGetAmbientLight 401 -> SensorStateAmbientLight 402; upstream protocol.yml's sensor packets). The product
// registry does not say which products have the sensor, so each light is asked: a light without it stays silent,
// like any light asked what it does not support (https://lan.developer.lifx.com/docs/querying-the-device-for-data).
// The reading is the sensor's raw lux, not calibrated; with the light on it mostly measures the light's own output.
// It rides on the state reads of the refresh schedule and never holds them up: a state read that answered starts
// it, and nothing waits for it. Not the first read's: a new light's whole first read fits its quiet burst
// (pacingQuietBurst), and a probe more would make part of it wait a pacing turn; the first state read after the
// light's facts are known (its first background refresh) asks.

import { LightwireError } from '../errors.js';
import { NO_PAYLOAD } from '../transport/requester.js';
import { CAPABILITY_PROBE_TIMEOUT_MS, PROBE_ROUNDS } from './capability-prober.js';
import type { ReadHost } from './state-reader.js';

export class AmbientLightReader {
  /** Lights whose sensor answered: read on every state refresh, with the read timeout and its retries. */
  private readonly answering = new Set<string>();
  /** Unanswered probes by light; at PROBE_ROUNDS the light is taken to have no sensor and never asked again. */
  private readonly silent = new Map<string, number>();
  private readonly inFlight = new Set<string>();

  /** @param report where a failure that is no coded error goes (the client's `error` event) */
  constructor(
    private readonly host: ReadHost,
    private readonly isLight: (serial: string) => boolean,
    private readonly report: (err: Error) => void,
  ) {}

  /** Whether a light is still asked: it answered, or has not stayed silent PROBE_ROUNDS times yet. */
  asks(serial: string): boolean {
    return this.answering.has(serial) || (this.silent.get(serial) ?? 0) < PROBE_ROUNDS;
  }

  /**
   * After a state read the light answered: reads its sensor in the background. A light not known to have one is
   * probed with one transmission awaited CAPABILITY_PROBE_TIMEOUT_MS (its silence is the answer; one lost packet
   * costs a refresh interval, PROBE_ROUNDS of them settle it); a reading that is no finite number is left out.
   */
  refresh(serial: string, timeoutMs: number): void {
    if (this.inFlight.has(serial) || !this.asks(serial) || !this.isLight(serial)) return;
    if (this.host.registry.peek(serial)?.facts.product === undefined) return;
    const device = this.host.addressOf(serial);
    if (device === undefined) return;
    const known = this.answering.has(serial);
    this.inFlight.add(serial);
    const options = known ? { timeoutMs } : { timeoutMs: Math.min(timeoutMs, CAPABILITY_PROBE_TIMEOUT_MS), once: true };
    this.host.requester
      .get(device, 'GetAmbientLight', NO_PAYLOAD, options)
      .then(
        (reply) => {
          this.answering.add(serial);
          this.silent.delete(serial);
          const lux = reply.payload.lux;
          if (Number.isFinite(lux) && lux >= 0 && this.host.registry.has(serial)) this.host.registry.update(serial, { ambientLux: lux });
        },
        (err: unknown) => {
          if (!known && err instanceof LightwireError && err.code !== 'CLIENT_STOPPED') this.silent.set(serial, (this.silent.get(serial) ?? 0) + 1);
          if (!(err instanceof LightwireError)) this.report(err as Error);
        },
      )
      .finally(() => this.inFlight.delete(serial));
  }
}

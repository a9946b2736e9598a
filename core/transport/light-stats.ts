// Per-light exchange figures, the network doctor's raw data (see LightTransportStats): counted when an exchange
// ends, from what it was (attempts, answered or timed out) and, by Karn's rule, its round trip.

import { LightwireError } from '../errors.js';

/** How many recent round-trip samples each light keeps. */
export const RTT_SAMPLES_KEPT = 128;

/**
 * One light's exchanges (counted when they end; superseded and cancelled ones are not): the network doctor's
 * raw figures. A transmission is lost when no reply to it came before the next one went out or the deadline
 * passed, so a reply later than the retry gap counts as a loss too. Round trips are Karn's: only exchanges
 * answered at the first transmission give a sample (a retransmitted one cannot say which copy was answered),
 * and never requests whose replies are collected over a gap.
 */
export interface LightTransportStats {
  /** Exchanges that ended: answered (or refused with StateUnhandled) or timed out. */
  readonly requests: number;
  readonly answered: number;
  readonly timeouts: number;
  /** Transmissions of those exchanges, and how many of them went unanswered. */
  readonly attempts: number;
  readonly lostAttempts: number;
  readonly retransmits: number;
  /** Round-trip samples taken so far, and the most recent (at most RTT_SAMPLES_KEPT), oldest first, in ms. */
  readonly rttSamples: number;
  readonly recentRttMs: readonly number[];
}

interface LightCounters {
  requests: number;
  answered: number;
  timeouts: number;
  attempts: number;
  lostAttempts: number;
  retransmits: number;
  rttSamples: number;
  readonly rttMs: number[];
}

export class LightStatsBook {
  private readonly perLight = new Map<string, LightCounters>();

  /**
   * An exchange with this light ended after `attempts` transmissions, with `rttMs` its round trip when it may give a
   * sample. Counted when answered (a StateUnhandled refusal is an answer) or timed out; superseded and cancelled
   * exchanges are not.
   */
  ended(serial: string, attempts: number, outcome: 'done' | 'superseded' | Error, rttMs: number | undefined): void {
    const answered = outcome === 'done' || (outcome instanceof LightwireError && outcome.code === 'UNHANDLED_BY_DEVICE');
    if (!answered && !(outcome instanceof LightwireError && outcome.code === 'REQUEST_TIMED_OUT')) return;
    let c = this.perLight.get(serial);
    if (c === undefined) {
      c = { requests: 0, answered: 0, timeouts: 0, attempts: 0, lostAttempts: 0, retransmits: 0, rttSamples: 0, rttMs: [] };
      this.perLight.set(serial, c);
    }
    c.requests++;
    c.attempts += attempts;
    c.retransmits += attempts - 1;
    if (!answered) {
      c.timeouts++;
      c.lostAttempts += attempts;
      return;
    }
    c.answered++;
    c.lostAttempts += attempts - 1;
    if (rttMs !== undefined) {
      c.rttMs[c.rttSamples % RTT_SAMPLES_KEPT] = rttMs;
      c.rttSamples++;
    }
  }

  /** One light's figures so far (a copy), or undefined when nothing was asked of it yet. */
  of(serial: string): LightTransportStats | undefined {
    const c = this.perLight.get(serial);
    if (c === undefined) return undefined;
    const n = c.rttMs.length;
    const start = c.rttSamples % RTT_SAMPLES_KEPT;
    const recentRttMs = n < RTT_SAMPLES_KEPT ? [...c.rttMs] : [...c.rttMs.slice(start), ...c.rttMs.slice(0, start)];
    const { rttMs: _ring, ...counts } = c;
    return { ...counts, recentRttMs };
  }

  /** Transmissions to one light that went unanswered so far, without the copy of() makes. */
  lostAttempts(serial: string): number {
    return this.perLight.get(serial)?.lostAttempts ?? 0;
  }

  /** How many of this light's requests have been answered so far, without the copy of() makes. */
  answered(serial: string): number {
    return this.perLight.get(serial)?.answered ?? 0;
  }
}

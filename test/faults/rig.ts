// The fault matrix's rig: a fleet of virtual colour bulbs on loopback, a LightService that found and read them all
// before any fault is switched on, and a checker that holds every write's results against the fleet's own state
// (VirtualLight.state, never through our client).

import { expect } from 'chai';
import { LightService } from '../../core/control/service.js';
import type { LightResult } from '../../core/control/types.js';
import type { Faults } from '../../core/simulator/faults.js';
import type { FaultsInput, LightInput } from '../../core/simulator/fleet-file.js';
import { Fleet } from '../../core/simulator/fleet.js';

/** A small seeded PRNG (mulberry32), so a failing run can be repeated with LIGHTWIRE_FAULT_SEED. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const SEED = process.env.LIGHTWIRE_FAULT_SEED === undefined ? (Date.now() % 1_000_000) : Number(process.env.LIGHTWIRE_FAULT_SEED);

export const serialOf = (i: number): string => `d073d5f0${(i + 1).toString(16).padStart(4, '0')}`;

export interface Target {
  readonly power: 'on' | 'off';
  readonly color: { readonly hue: number; readonly saturation: number; readonly brightness: number; readonly kelvin: number };
}

/** What a write asked of each light, and what it answered. */
export interface Tally {
  ok: number;
  timedOut: number;
  offline: number;
  /** timed_out, yet the light shows the requested state: it changed and its ack (or every ack) was lost. */
  changedButTimedOut: number;
  /** Longest a write call took, ms. */
  worstMs: number;
}

export const emptyTally = (): Tally => ({ ok: 0, timedOut: 0, offline: 0, changedButTimedOut: 0, worstMs: 0 });

/** A wire HSBK holds hue in 65536ths of a turn and the fractions in 65535ths: one step either way is the same state. */
export function shows(light: { power: 'on' | 'off'; color: Target['color'] }, want: Target): boolean {
  const c = light.color;
  const hueStep = 360 / 65536;
  const dHue = Math.abs(c.hue - want.color.hue) % 360;
  return (
    light.power === want.power &&
    Math.min(dHue, 360 - dHue) <= hueStep &&
    Math.abs(c.saturation - want.color.saturation) <= 1 / 65535 &&
    Math.abs(c.brightness - want.color.brightness) <= 1 / 65535 &&
    c.kelvin === want.color.kelvin
  );
}

export interface FaultRig {
  readonly fleet: Fleet;
  readonly service: LightService;
  readonly serials: readonly string[];
  readonly deadlineMs: number;
  /** Random targets from the seeded PRNG (distinct in hue from one call to the next). */
  target(power?: 'on' | 'off'): Target;
  /** Sets the same faults on the given lights (default every light); `{}` puts them back to none. */
  faults(patch: FaultsInput, serials?: readonly string[]): void;
  clearFaults(): void;
  /**
   * One write through LightService.setState, checked: one result per named light, the call back within the deadline
   * (plus scheduling slack), and an `ok` only for a light that shows the state at the moment the result came back.
   */
  write(selector: string, want: Target, expected: readonly string[], tally?: Tally): Promise<Map<string, LightResult['status']>>;
  close(): Promise<void>;
}

/** Scheduling slack over the deadline (2 cores shared by many processes): a result later than this is a failure. */
export const SLACK_MS = 750;

export interface FaultRigOptions {
  readonly lights: number;
  readonly deadlineMs: number;
  /** Discovery heartbeat (a moved light is found again by it). Default 1000. */
  readonly heartbeatMs?: number;
  readonly seed?: number;
  /** The fleet's randomness (loss, reordering); default the seeded PRNG. */
  readonly fleetRandom?: () => number;
}

const NO_FAULTS_INPUT: FaultsInput = {
  lossInProbability: 0,
  lossOutProbability: 0,
  latencyMs: 0,
  reorderProbability: 0,
  duplicateReplies: false,
  malformedReplies: 'off',
  unresponsive: false,
  offline: false,
};

export async function faultRig(o: FaultRigOptions): Promise<FaultRig> {
  const random = seededRandom(o.seed ?? SEED);
  const lights: LightInput[] = Array.from({ length: o.lights }, (_, i) => ({
    serial: serialOf(i),
    product: 91,
    label: `Matrix ${i + 1}`,
    group: { label: i % 2 === 0 ? 'Even' : 'Odd' },
    power: 'on',
    color: { hue: 0, saturation: 0, brightness: 1, kelvin: 3500 },
  }));
  const fleet = new Fleet({ lights }, { port: 0, random: o.fleetRandom ?? random, recordLimit: 100 });
  await fleet.start();
  const service = await LightService.start({
    discovery: {
      broadcastAddresses: ['127.255.255.255'],
      port: fleet.port,
      burstScheduleMs: [0, 200, 600],
      heartbeatMs: o.heartbeatMs ?? 1000,
      refreshIntervalMs: 0,
    },
    deadlineMs: o.deadlineMs,
    expectLights: o.lights,
    readyTimeoutMs: 5000,
  });
  await service.ready;
  expect(service.views().map((v) => v.serial), 'every light found and read before the faults').to.have.length(o.lights);
  const serials = lights.map((l) => l.serial);
  let lastHue = 0;
  return {
    fleet,
    service,
    serials,
    deadlineMs: o.deadlineMs,
    target(power = 'on') {
      // Hue at least 30 degrees from the last target's, so one write can never pass for the one before it.
      lastHue = (lastHue + 30 + Math.floor(random() * 300)) % 360;
      return {
        power,
        color: {
          hue: lastHue,
          saturation: Math.round(random() * 1000) / 1000,
          brightness: 0.1 + Math.round(random() * 900) / 1000,
          kelvin: 2500 + Math.floor(random() * 60) * 100,
        },
      };
    },
    faults(patch, only = serials) {
      for (const s of only) fleet.light(s).setFaults(patch);
    },
    clearFaults() {
      for (const s of serials) fleet.light(s).setFaults(NO_FAULTS_INPUT);
    },
    async write(selector, want, expected, tally) {
      const started = performance.now();
      const results = await service.setState(selector, { power: want.power, color: { ...want.color }, durationS: 0 });
      // Nothing has run since the results were made (no I/O between here and there): this is the fleet's state then.
      const elapsedMs = performance.now() - started;
      const states = new Map(expected.map((s) => [s, fleet.light(s).state]));
      const context = `${selector} -> ${JSON.stringify(want)} (seed ${o.seed ?? SEED})`;
      expect(results.map((r) => r.id).sort(), `one result per light: ${context}`).to.deep.equal([...expected].sort());
      expect(elapsedMs, `results within the deadline ${o.deadlineMs} ms (+${SLACK_MS}): ${context}`).to.be.below(o.deadlineMs + SLACK_MS);
      const out = new Map<string, LightResult['status']>();
      for (const r of results) {
        const state = states.get(r.id)!;
        const reached = shows(state, want);
        if (r.status === 'ok') {
          expect(reached, `${r.id} answered ok but shows ${JSON.stringify({ power: state.power, color: state.color })}: ${context}`).to.equal(true);
        }
        if (tally) {
          if (r.status === 'ok') tally.ok++;
          else if (r.status === 'timed_out') tally.timedOut++;
          else tally.offline++;
          if (r.status === 'timed_out' && reached) tally.changedButTimedOut++;
          tally.worstMs = Math.max(tally.worstMs, Math.round(elapsedMs));
        }
        out.set(r.id, r.status);
      }
      return out;
    },
    async close() {
      await service.stop();
      await fleet.stop();
    },
  };
}

export type { Faults };

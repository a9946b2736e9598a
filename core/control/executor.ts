// Runs plans: concurrent across lights, steps in order within a light, confirmed writes to one light in turn
// (latest wins among those waiting: light-lanes.ts), a deadline per light, one result per light. `ok` only when the
// light acknowledged every message; `timed_out` when a known light did not answer in time; `offline` when it is known
// to be gone. Never a hang: every light's result is settled by its deadline.

import type { LightClient } from '../discovery/client.js';
import { LightwireError } from '../errors.js';
import { ENUMS, powerToWire, type MessageName } from '../protocol/index.js';
import type { FastObserver, PostOutcome } from '../transport/requester.js';
import type { LightResult, LightView, Plan, PlannedMessage, RelayState, ResolvedLight } from './types.js';
import { groupNames, lightView, type GroupNames } from './views.js';
import { predict } from './predict.js';
import { LightLanes, type StateField } from './light-lanes.js';

export { effectName, factsAfter, predict, type PredictFrom, type Prediction } from './predict.js';

export interface ExecuteOptions {
  /** End-state messages only, no read, no reply awaited: resolves once handed to the socket. */
  readonly fast: boolean;
  /** Per light: the read, every step and every retry happen inside it. */
  readonly deadlineMs: number;
  /**
   * Read the current state (and zones) first; ignored in fast mode. `cached-state`: read it unless the service's
   * state of the light is fresh enough to plan from (Executor.fresh, Executor.fromCache).
   */
  readonly read: 'none' | 'state' | 'state+zones' | 'cached-state';
  /** For `cached-state`: how old (ms) what our reads and writes told of a light may be to plan from it. */
  readonly freshStateMs?: number;
  /** Lights whose zones are read too (and never planned from the cache), whatever `read` says of the others. */
  readonly zonesOf?: ((light: LightView) => boolean) | undefined;
  /** Ask for the State reply as well as the ack (res_required: renaming, https://lan.developer.lifx.com/docs/changing-a-device). */
  readonly withReply?: boolean;
  /**
   * What a confirmed write sets on the whole light (fieldsSet): while it waits its turn on a light it may be replaced
   * by a newer write setting all of them, and answers with that one's result (LightLanes). Undefined: run as asked.
   */
  readonly fields?: ReadonlySet<StateField> | undefined;
}

/**
 * How long a light's power and a strip's zones, read or acknowledged, are trusted by a latest-wins write
 * (WriteOptions.latestWins): one of a stream of changes, whose own writes set them. Power switched off (or zones
 * painted) behind the service's back during a stream are set again within about this long.
 */
export const STREAM_TRUST_MS = 1000;

/** How long what the service last read or wrote of a light is fresh enough to plan a confirmed write from. */
export const DEFAULT_FRESH_STATE_MS = 5000;

/** Builds the plan for one light from its (freshly read, in non-fast mode) view. */
export type PlanFor = (light: LightView, zones: ResolvedLight['zones']) => Plan;

/**
 * A planner as an object: its plan() is one function for every run, where a PlanFor made for each run is a new callee
 * each time, which the code compiled while running the last one does not expect (a fleet-wide fast run calls it for
 * every light).
 */
export interface Planner {
  plan(light: LightView, zones: ResolvedLight['zones']): Plan;
}

function result(light: LightView, status: LightResult['status']): LightResult {
  return { id: light.serial, label: light.label, status };
}

/** How a zone message applies (NO_APPLY, APPLY, APPLY_ONLY); undefined for every other message. */
function zoneApply(m: PlannedMessage): string | undefined {
  if (m.name !== 'SetColorZones' && m.name !== 'SetExtendedColorZones') return undefined;
  return ENUMS.MultiZoneApplicationRequest[m.payload.apply as 0] ?? 'APPLY';
}

/** The coalesce key of a fast message: its name, plus the zones or tile it paints when it paints only some. */
export function partKey(m: PlannedMessage): string {
  switch (m.name) {
    case 'SetColorZones':
      return `${m.name}:${m.payload.startIndex}-${m.payload.endIndex}`;
    case 'SetExtendedColorZones':
      return `${m.name}:${m.payload.index}+${m.payload.colorsCount}`;
    case 'Set64':
      return `${m.name}:${m.payload.tileIndex}+${m.payload.length}:${m.payload.rect.fbIndex}:${m.payload.rect.x},${m.payload.rect.y}`;
    case 'CopyFrameBuffer':
      return `${m.name}:${m.payload.tileIndex}+${m.payload.length}:${m.payload.srcFbIndex}>${m.payload.dstFbIndex}`;
    default:
      return m.name;
  }
}

/**
 * What a fast run makes the registry show once its batch is sent, in order: light i its whole plan, or one message of
 * it (two arrays, not an object per light).
 */
function show(lights: LightView[], shown: (Plan | PlannedMessage)[], light: LightView, what: Plan | PlannedMessage): void {
  lights.push(light);
  shown.push(what);
}

/** The coalesce keys of a plan's messages (partKey), in order; a fast run's lights mostly share a handful of plans. */
function partKeys(plan: Plan): string[] {
  const keys: string[] = [];
  for (const step of plan.steps) for (const m of step) keys.push(partKey(m));
  return keys;
}

export class Executor {
  /**
   * A fast message's effect reaches the registry when it goes out, with the payload it carried (and, for one that has
   * to wait its turn, when it is queued): within the call for a single request, and at the light's pace in a flood
   * of requests, which costs the registry (and every view and event behind it) a few updates per message sent rather
   * than one per request.
   */
  private readonly fastObserver: FastObserver = {
    sent: (device, name, payload) => this.sentFast(device.serial, name, payload),
  };

  /** Confirmed writes to one light run in turn, latest wins among those waiting (light-lanes.ts). */
  private readonly lanes = new LightLanes<LightResult>((r) => ({ ...r, superseded: true }));

  /**
   * The arrays a fast run notes what its batch sent in (show()), kept from run to run and emptied after each: arrays
   * of one kind for the life of the executor. A run begun while one is showing (a listener's) takes arrays of its own.
   */
  private spareShown: { readonly lights: LightView[]; readonly shown: (Plan | PlannedMessage)[] } | undefined = { lights: [], shown: [] };

  constructor(private readonly client: LightClient) {}

  run(targets: readonly ResolvedLight[], planner: PlanFor | Planner, options: ExecuteOptions): Promise<LightResult[]> {
    if (options.fast) {
      try {
        // The registry learns what went out after the batch has handed every datagram to the socket: the views and
        // events behind it (a few microseconds a light) do not stand between the lights and their messages.
        const spare = this.spareShown;
        this.spareShown = undefined;
        const lights = spare?.lights ?? [];
        const shown = spare?.shown ?? [];
        try {
          const results = this.client.requester.batch(() => this.runFast(targets, planner, lights, shown));
          for (let i = 0; i < lights.length; i++) {
            const light = lights[i]!;
            const what = shown[i]!;
            if ('steps' in what) this.wrote(light, what);
            else this.sentFast(light.serial, what.name, what.payload);
          }
          return Promise.resolve(results);
        } finally {
          lights.length = 0;
          shown.length = 0;
          if (spare !== undefined) this.spareShown = spare;
        }
      } catch (err) {
        return Promise.reject(err as Error);
      }
    }
    // One run reads light states, not group or location names: they are resolved once for the whole run.
    const names = groupNames(this.client.registry);
    const planFor: PlanFor = typeof planner === 'function' ? planner : (light, zones) => planner.plan(light, zones);
    return Promise.all(
      targets.map((t) => {
        // The deadline counts from now: time spent waiting for the light's earlier writes is part of it.
        const deadline = performance.now() + options.deadlineMs;
        const { light } = t;
        if (!light.online || this.client.addressOf(light.serial) === undefined) return Promise.resolve(result(light, 'offline'));
        // Answers the light gives the writes this one waits for count as answers to it: a write that then runs out
        // of time is no sign the light is gone.
        const asked = this.client.answeredMark(light.serial);
        return this.lanes.inTurn(light.serial, options.fields, (waited) => {
          if (!waited) return this.runOne(t, planFor, options, names, deadline, asked);
          // The writes before it took its whole deadline: it is not sent (nor counted against the light).
          if (performance.now() >= deadline) return Promise.resolve(result(light, 'timed_out'));
          return this.runOne(this.current(t, names), planFor, options, names, deadline, asked);
        });
      }),
    );
  }

  /**
   * Fast mode, synchronously: every light's end-state messages are planned and queued on its pacing lane (latest
   * wins per light and part), and the run is answered then, not once they are sent. A quiet light's messages go out
   * within this call; a busy light's follow at its pace, the newest values first in line. `ok` means accepted.
   */
  private runFast(targets: readonly ResolvedLight[], planner: PlanFor | Planner, lights: LightView[], shown: (Plan | PlannedMessage)[]): LightResult[] {
    const requester = this.client.requester;
    const registry = this.client.registry;
    const observer = this.fastObserver;
    const results = new Array<LightResult>(targets.length);
    // The coalesce keys of the last plan: lights of one product share their plan (writes.ts, FastPlanner).
    let keyed: Plan | undefined;
    let keys: string[] = [];
    // What post() did with each message of the light in hand (no array per light).
    const outcomes: PostOutcome[] = [];
    for (let i = 0; i < targets.length; i++) {
      const { light, zones } = targets[i]!;
      // The live record is the device address (serial, address, port): the queued messages follow an address change.
      const device = registry.peek(light.serial);
      if (!light.online || device === undefined) {
        results[i] = result(light, 'offline');
        continue;
      }
      const plan = typeof planner === 'function' ? planner(light, zones) : planner.plan(light, zones);
      if (plan !== keyed) {
        keyed = plan;
        keys = partKeys(plan);
      }
      let closed = false;
      let sent = 0;
      let k = 0;
      for (const step of plan.steps) {
        for (const m of step) {
          // Messages addressed to part of a light (zones, tiles) only replace a waiting message for the same part.
          const outcome = requester.postWith(device, m.name, m.payload as never, keys[k], observer);
          outcomes[k++] = outcome;
          if (outcome === 'sent') sent++;
          else if (outcome === 'closed') closed = true;
          // A message that must wait its turn shows at once all the same (a light's latest state, as before); one that
          // replaced a waiting message shows when that goes out, so a flood updates the registry at the light's pace.
          else if (outcome === 'queued') show(lights, shown, light, m);
        }
      }
      if (closed) {
        results[i] = result(light, 'offline');
        continue;
      }
      // A quiet light (the common case): the whole plan went out now, one registry update for it.
      if (sent === k) show(lights, shown, light, plan);
      else if (sent > 0) {
        k = 0;
        for (const step of plan.steps) for (const m of step) if (outcomes[k++] === 'sent') show(lights, shown, light, m);
      }
      results[i] = result(light, 'ok');
    }
    return results;
  }

  private async runOne(
    target: ResolvedLight,
    planFor: PlanFor,
    options: ExecuteOptions,
    names: GroupNames,
    deadline: number,
    asked: number,
  ): Promise<LightResult> {
    const { light } = target;
    const device = this.client.addressOf(light.serial);
    if (!light.online || device === undefined) return result(light, 'offline');
    const remaining = (): number => Math.max(1, Math.round(deadline - performance.now()));
    const requester = this.client.requester;
    try {
      let current: LightView;
      let planFrom: LightView;
      const zones = options.read === 'state+zones' || options.zonesOf?.(light) === true;
      if (options.read === 'none' && !zones) current = planFrom = light;
      else if (options.read === 'cached-state' && this.fresh(light, options.freshStateMs ?? DEFAULT_FRESH_STATE_MS)) {
        // Power and colour are fresh. A strip's zones are still read first, alone (another app may have painted
        // them), and power goes out with the colour (fromCache), except in a latest-wins stream (only latest-wins
        // writes carry fields): what its own writes set within STREAM_TRUST_MS is the light's.
        const stream = options.fields !== undefined;
        current = zones && !(stream && this.setWithin(light.serial, 'zones')) ? await this.read(light, zones, remaining, names, false) : light;
        planFrom = stream && this.setWithin(light.serial, 'power') ? current : this.fromCache(current);
      } else current = planFrom = await this.read(light, zones, remaining, names);
      const plan = planFor(planFrom, target.zones);
      // A confirmed write never coalesces (latest wins is fast mode's): a Set replaced before it went out would answer
      // ok for a state the light never got, e.g. the middle ones of several zone messages in one step, or the older of
      // two writes to one light.
      const send = (m: PlannedMessage): Promise<unknown> =>
        requester.set(device, m.name, m.payload as never, { timeoutMs: remaining(), coalesceKey: false, withReply: options.withReply === true });
      for (const step of plan.steps) {
        // Zones sent with NO_APPLY show on the step's APPLY (https://lan.developer.lifx.com/docs/multizone-light-control): it goes out once they are all
        // acknowledged, so a NO_APPLY retransmitted after a loss never lands after it, unshown.
        const buffered = step.some((m) => zoneApply(m) === 'NO_APPLY');
        const shows = buffered ? step.filter((m) => zoneApply(m) !== undefined && zoneApply(m) !== 'NO_APPLY') : [];
        await Promise.all(step.filter((m) => !shows.includes(m)).map(send));
        if (shows.length > 0) await Promise.all(shows.map(send));
      }
      this.wrote(current, plan);
      this.client.registry.answered(light.serial);
      return result(current, 'ok');
    } catch (err) {
      if (err instanceof LightwireError && err.code === 'REQUEST_TIMED_OUT') {
        this.client.missedSince(light.serial, asked);
        return result(light, 'timed_out');
      }
      if (err instanceof LightwireError && (err.code === 'CLIENT_STOPPED' || err.code === 'REQUEST_CANCELLED')) {
        return result(light, 'offline');
      }
      if (err instanceof LightwireError && err.code === 'UNHANDLED_BY_DEVICE') return result(light, 'timed_out');
      throw err;
    }
  }

  /** The target with the light as the registry shows it now (after the writes it waited for). */
  private current(target: ResolvedLight, names: GroupNames): ResolvedLight {
    const record = this.client.registry.get(target.light.serial);
    return record === undefined ? target : { ...target, light: lightView(record, names) };
  }

  /**
   * Reads the relays of a LIFX Switch (GetRPower for relays 0 to RELAYS_MAX - 1 at once): the relays that answered,
   * by index. REQUEST_TIMED_OUT (and a miss) when none did; an offline device is asked too (an answer brings it back).
   */
  async readRelays(light: LightView, deadlineMs: number): Promise<RelayState[]> {
    const asked = this.client.answeredMark(light.serial);
    try {
      const relays = await this.client.readRelays(light.serial, deadlineMs);
      this.client.registry.answered(light.serial);
      return [...relays];
    } catch (err) {
      if (err instanceof LightwireError && err.code === 'REQUEST_TIMED_OUT') this.client.missedSince(light.serial, asked);
      throw err;
    }
  }

  /** Switches one relay of a LIFX Switch (SetRPower); `offline` at once for an offline device, like every write. */
  async setRelay(light: LightView, relayIndex: number, on: boolean, options: Pick<ExecuteOptions, 'fast' | 'deadlineMs'>): Promise<LightResult> {
    const device = this.client.addressOf(light.serial);
    if (!light.online || device === undefined) return result(light, 'offline');
    const asked = this.client.answeredMark(light.serial);
    const payload = { relayIndex, level: powerToWire(on ? 'on' : 'off') };
    try {
      if (options.fast) {
        if (this.client.requester.post(device, 'SetRPower', payload, { coalesceKey: `SetRPower:${relayIndex}` }) === 'closed') return result(light, 'offline');
      } else {
        // Not coalesced: relays share the message name, and a replaced SetRPower would answer ok for a relay never switched.
        await this.client.requester.set(device, 'SetRPower', payload, { timeoutMs: options.deadlineMs, coalesceKey: false });
        this.client.registry.answered(light.serial);
      }
      // What the service reports follows the write at once (and a background read confirms it).
      const before = this.client.registry.peek(light.serial)?.facts.relays?.value ?? [];
      const relays = [...before.filter((r) => r.index !== relayIndex), { index: relayIndex, on }].sort((a, b) => a.index - b.index);
      this.client.registry.update(light.serial, { relays });
      return result(light, 'ok');
    } catch (err) {
      if (err instanceof LightwireError && err.code === 'REQUEST_TIMED_OUT') {
        this.client.missedSince(light.serial, asked);
        return result(light, 'timed_out');
      }
      if (err instanceof LightwireError && (err.code === 'CLIENT_STOPPED' || err.code === 'REQUEST_CANCELLED')) return result(light, 'offline');
      throw err;
    }
  }

  /** One fast message went out (or was queued): the registry shows what it makes the light show (see fastObserver). */
  private sentFast(serial: string, name: MessageName, payload: unknown): void {
    const registry = this.client.registry;
    const record = registry.peek(serial);
    if (record === undefined) return;
    try {
      const plan: Plan = { steps: [[{ name, payload } as PlannedMessage]] };
      const f = record.facts;
      const { facts, settleMs } = predict(plan, { color: f.color?.value ?? null, zones: f.zones?.value ?? null, tiles: f.tiles?.value ?? null, pixels: f.pixels?.value ?? null });
      registry.wrote(serial, facts, settleMs);
    } catch (err) {
      // Runs in the pacer's turn (a timer): a listener's error is reported, never thrown into the host.
      if (this.client.listenerCount('error') > 0) this.client.emit('error', err as Error);
      else process.emitWarning(`lightwire: ${(err as Error).message}`, { code: 'LIGHTWIRE_BACKGROUND_ERROR' });
    }
  }

  /**
   * The registry shows what the plan makes the light show, at once, and holds it while its transitions run. Predicted
   * over what the registry shows now, not over the view the plan was made from: writes acknowledged late must not
   * bring back what newer ones replaced meanwhile (a pulse ends where the light is when it ends, which a colour
   * sent while it waited for its acknowledgement may have changed).
   */
  private wrote(light: LightView, plan: Plan): void {
    const held = this.client.registry.peek(light.serial)?.facts;
    const before =
      held === undefined
        ? light
        : { color: held.color?.value ?? light.color, zones: held.zones?.value ?? light.zones, tiles: held.tiles?.value ?? light.matrix?.tiles ?? null, pixels: held.pixels?.value ?? light.pixels };
    const { facts, settleMs } = predict(plan, before);
    this.client.registry.wrote(light.serial, facts, settleMs);
  }

  /**
   * What the service knows of a light is fresh enough to plan a confirmed write from, without reading it first:
   * power and colour were read, or written by us, within `freshMs`; no transition of ours is running on them (the
   * light shows a mid-fade value); no confirmed write to it is still unacknowledged; it answered its last exchange.
   */
  private fresh(light: LightView, freshMs: number): boolean {
    if (freshMs <= 0 || !light.online) return false;
    const registry = this.client.registry;
    const record = registry.peek(light.serial);
    if (record === undefined || record.misses > 0) return false;
    const { power, color } = record.facts;
    if (power === undefined || color === undefined) return false;
    const oldest = Date.now() - freshMs;
    if (power.readAt < oldest || color.readAt < oldest) return false;
    if (registry.settlesAt(light.serial, 'power') !== undefined || registry.settlesAt(light.serial, 'color') !== undefined) return false;
    return this.client.requester.pendingSets(light.serial) === 0;
  }

  /**
   * Whether the light's power (or a strip's zones) was read or acknowledged within the last STREAM_TRUST_MS (registry
   * clock, Date.now), with no transition of ours running on it.
   */
  private setWithin(serial: string, fact: 'power' | 'zones'): boolean {
    const registry = this.client.registry;
    const known = registry.peek(serial)?.facts[fact];
    return known !== undefined && known.readAt >= Date.now() - STREAM_TRUST_MS && registry.settlesAt(serial, fact) === undefined;
  }

  /**
   * The view a write is planned from when the read is skipped: what the service knows (a partial colour is merged over
   * the known colour, as after a read), except that a light known to be on is planned as of unknown power, so a
   * power-on goes out with the colour, in one step, rather than being left out: should something else have switched
   * the light off since, it still ends on. A light known to be off keeps its power: the colour is painted while it is
   * dark, then it powers on (and a light that was on after all only skips the fade).
   */
  private fromCache(light: LightView): LightView {
    return light.power === 'on' ? { ...light, power: null } : light;
  }

  /**
   * Reads power, colour and label (and zones) and returns the light's refreshed view. Confirmed writes to a light run
   * in turn (LightLanes), so a read is never shared: each is sent after the writes before it were acknowledged.
   * A reply to a read sent before one of our writes, or taken while its transition runs, does not replace what the
   * write set (the client's readLightState), so a relative change starts from the target, not a mid-fade sample.
   * `state` false: the zones alone (the caller holds power and colour fresh).
   */
  private async read(light: LightView, zones: boolean, remaining: () => number, names: GroupNames, state = true): Promise<LightView> {
    const registry = this.client.registry;
    await this.client.readLightState(light.serial, { zones, state, remainingMs: remaining });
    registry.answered(light.serial);
    const record = registry.get(light.serial);
    return record ? lightView(record, names) : light;
  }
}

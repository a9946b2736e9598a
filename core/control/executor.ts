// Runs plans: concurrent across lights, steps in order within a light, a deadline per light, one result
// per light. `ok` only when the light acknowledged every message; `timed_out` when a known light did not
// answer in time; `offline` when it is known to be gone. Never a hang: every light's result is settled by its deadline.

import type { LightClient } from '../discovery/client.js';
import { LightwireError } from '../errors.js';
import { ENUMS, powerToWire, type MessageName } from '../protocol/index.js';
import type { FastObserver } from '../transport/requester.js';
import type { LightResult, LightView, Plan, PlannedMessage, RelayState, ResolvedLight } from './types.js';
import { groupNames, lightView, type GroupNames } from './views.js';
import { predict } from './predict.js';

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
}

/** How long what the service last read or wrote of a light is fresh enough to plan a confirmed write from. */
export const DEFAULT_FRESH_STATE_MS = 5000;

/** Builds the plan for one light from its (freshly read, in non-fast mode) view. */
export type PlanFor = (light: LightView, zones: ResolvedLight['zones']) => Plan;

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

/** A state read confirmed writes to one light share (Executor.read). */
interface SharedRead {
  /** Requester.setsBegun() for the light when it was asked. */
  readonly setsBegun: number;
  /** Whether it reads the zones too. */
  readonly zones: boolean;
  /** Whether it reads colour, power and label (false: the zones alone). */
  readonly state: boolean;
  readonly done: Promise<void>;
}

/** What a fast run makes the registry show once its batch is sent: a light's whole plan, or one message of it. */
type FastShown =
  | { readonly light: LightView; readonly plan: Plan; readonly message: undefined }
  | { readonly light: LightView; readonly plan: undefined; readonly message: PlannedMessage };

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

  /** Per light, the state read confirmed writes share (read()). */
  private readonly readsInFlight = new Map<string, SharedRead>();

  constructor(private readonly client: LightClient) {}

  run(targets: readonly ResolvedLight[], planFor: PlanFor, options: ExecuteOptions): Promise<LightResult[]> {
    if (options.fast) {
      try {
        // The registry learns what went out after the batch has handed every datagram to the socket: the views and
        // events behind it (a few microseconds a light) do not stand between the lights and their messages.
        const shown: FastShown[] = [];
        const results = this.client.requester.batch(() => this.runFast(targets, planFor, shown));
        for (const s of shown) {
          if (s.plan !== undefined) this.wrote(s.light, s.plan);
          else this.sentFast(s.light.serial, s.message.name, s.message.payload);
        }
        return Promise.resolve(results);
      } catch (err) {
        return Promise.reject(err as Error);
      }
    }
    // One run reads light states, not group or location names: they are resolved once for the whole run.
    const names = groupNames(this.client.registry);
    return Promise.all(targets.map((t) => this.runOne(t, planFor, options, names)));
  }

  /**
   * Fast mode, synchronously: every light's end-state messages are planned and queued on its pacing lane (latest
   * wins per light and part), and the run is answered then, not once they are sent. A quiet light's messages go out
   * within this call; a busy light's follow at its pace, the newest values first in line. `ok` means accepted.
   */
  private runFast(targets: readonly ResolvedLight[], planFor: PlanFor, shown: FastShown[]): LightResult[] {
    const requester = this.client.requester;
    const registry = this.client.registry;
    const results = new Array<LightResult>(targets.length);
    for (let i = 0; i < targets.length; i++) {
      const { light, zones } = targets[i]!;
      // The live record is the device address (serial, address, port): the queued messages follow an address change.
      const device = registry.peek(light.serial);
      if (!light.online || device === undefined) {
        results[i] = result(light, 'offline');
        continue;
      }
      const plan = planFor(light, zones);
      let closed = false;
      let allSent = true;
      let sent: PlannedMessage[] | undefined;
      for (const step of plan.steps) {
        for (const m of step) {
          // Messages addressed to part of a light (zones, tiles) only replace a waiting message for the same part.
          const outcome = requester.post(device, m.name, m.payload as never, { coalesceKey: partKey(m), observer: this.fastObserver });
          if (outcome === 'sent') {
            (sent ??= []).push(m);
            continue;
          }
          allSent = false;
          if (outcome === 'closed') closed = true;
          // A message that must wait its turn shows at once all the same (a light's latest state, as before); one that
          // replaced a waiting message shows when that goes out, so a flood updates the registry at the light's pace.
          else if (outcome === 'queued') shown.push({ light, plan: undefined, message: m });
        }
      }
      if (closed) {
        results[i] = result(light, 'offline');
        continue;
      }
      // A quiet light (the common case): the whole plan went out now, one registry update for it.
      if (allSent) shown.push({ light, plan, message: undefined });
      else for (const m of sent ?? []) shown.push({ light, plan: undefined, message: m });
      results[i] = result(light, 'ok');
    }
    return results;
  }

  private async runOne(target: ResolvedLight, planFor: PlanFor, options: ExecuteOptions, names: GroupNames): Promise<LightResult> {
    const { light } = target;
    const device = this.client.addressOf(light.serial);
    if (!light.online || device === undefined) return result(light, 'offline');
    const asked = this.client.answeredMark(light.serial);
    const deadline = performance.now() + options.deadlineMs;
    const remaining = (): number => Math.max(1, Math.round(deadline - performance.now()));
    const requester = this.client.requester;
    try {
      let current: LightView;
      let planFrom: LightView;
      const zones = options.read === 'state+zones' || options.zonesOf?.(light) === true;
      if (options.read === 'none' && !zones) current = planFrom = light;
      else if (options.read === 'cached-state' && this.fresh(light, options.freshStateMs ?? DEFAULT_FRESH_STATE_MS)) {
        // Power and colour are fresh; a strip's zones are still read (another app may have painted them), alone.
        current = zones ? await this.read(light, zones, remaining, names, false) : light;
        planFrom = this.fromCache(current);
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
   * Reads power, colour and label (and zones) and returns the light's refreshed view. Writes to one light asked
   * together share one read (a flood of confirmed writes would otherwise queue a read each in the light's pacing
   * lane, and time out behind them): a read in flight is joined when no confirmed Set to the light has begun since
   * it was asked, so it waits for the very Sets this write's own read would have waited for, and has the zones
   * when this write needs them. Its deadline is that of the write that asked it, a moment earlier. `state` false:
   * the zones alone (the caller holds power and colour fresh).
   */
  private async read(light: LightView, zones: boolean, remaining: () => number, names: GroupNames, state = true): Promise<LightView> {
    const registry = this.client.registry;
    const setsBegun = this.client.requester.setsBegun(light.serial);
    let shared = this.readsInFlight.get(light.serial);
    if (shared === undefined || shared.setsBegun !== setsBegun || (zones && !shared.zones) || (state && !shared.state)) {
      // The client's one state read: a reply to a read sent before one of our writes, or taken while its transition
      // runs, does not replace what the write set, so a relative change starts from the target, not a mid-fade sample.
      const mine: SharedRead = { setsBegun, zones, state, done: this.client.readLightState(light.serial, { zones, state, remainingMs: remaining }) };
      this.readsInFlight.set(light.serial, mine);
      const forget = (): void => {
        if (this.readsInFlight.get(light.serial) === mine) this.readsInFlight.delete(light.serial);
      };
      mine.done.then(forget, forget);
      shared = mine;
    }
    await shared.done;
    registry.answered(light.serial);
    const record = registry.get(light.serial);
    return record ? lightView(record, names) : light;
  }
}

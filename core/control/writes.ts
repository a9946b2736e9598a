// The writes of the light service: each operation of the catalogue, checked once by the service, resolved to
// lights, planned per light and run by the executor; one result per light. Set State and its kin (Set States,
// Toggle, State Delta, Cycle) plan with the Set State planner; effects with their own (operations.ts).

import type { LightClient } from '../discovery/client.js';
import { LightwireError } from '../errors.js';
import { RELAYS_MAX, type Capabilities } from '../protocol/index.js';
import { FIRMWARE_EFFECT_MIN_MAJOR, MAX_STATES, OPERATIONS, type EffectOperationName, type SelectorOperationName } from './catalogue.js';
import type { ExecuteOptions, Executor, PlanFor, Planner } from './executor.js';
import { fieldsSet } from './light-lanes.js';
import { Naming } from './naming.js';
import { planEffect } from './operations.js';
import { paintable, paintNeedsPixels, planPaint } from './paint.js';
import { planTheme, themeNeedsRead } from './themes.js';
import { planSetState, usesZones } from './planner.js';
import { stateChangeOf, trustedChange, type Checked, type CheckedChange, type SetStateRequest } from './requests.js';
import type { Scene } from './scene-file.js';
import { picturesOf } from './scene-picture.js';
import { pictureJob, restorePicture } from './scene-restore.js';
import { parseSelectors } from './selectors.js';
import { planPart, type PartMemory } from './part-plan.js';
import { partView, zoneCount, zonesShown } from './parts.js';
import type { SetStatesOperation, SetStatesResult } from './service-types.js';
import type { LightResult, LightView, Plan, RelayState, ResolvedLight } from './types.js';

/**
 * delta.ts (State Delta and Cycle), loaded by the first of them: most processes never send one, and every module
 * loaded costs heap in every process (its source, its functions).
 */
const deltas = (): typeof import('./delta.js') => require('./delta.js') as typeof import('./delta.js');
/** scene-activation.ts, loaded by the first scene activated (require: synchronous; the package is CommonJS). */
const sceneActivation = (): typeof import('./scene-activation.js') => require('./scene-activation.js') as typeof import('./scene-activation.js');

/** What the writes need of the service. */
export interface WriteContext {
  readonly executor: Executor;
  readonly deadlineMs: number;
  readonly freshStateMs: number;
  readonly defaultDurationS: number;
  resolve(selector: string): ResolvedLight[];
  /** One device's view (a LIFX Switch too). */
  light(serial: string): LightView | undefined;
  /** Checks a Set State (the parser) with `prefix` before its fields. */
  stateChange(request: SetStateRequest, prefix: string): CheckedChange;
  /** Reads a light now, then its view. */
  reread(serial: string): Promise<LightView | undefined>;
  /** For renaming (naming.ts): the client, every device read (lights and switches), background trouble. */
  readonly client: LightClient;
  views(): LightView[];
  error(err: Error): void;
}

function invalid(field: string, reason: string): LightwireError<'PARAMETER_INVALID'> {
  return new LightwireError('PARAMETER_INVALID', { field, reason });
}

/**
 * Fast mode's planner for one change: a fast plan depends on the light's capabilities alone unless it paints some
 * zones of a strip (then on its zones), so lights of one product share one plan (a fleet has a handful).
 */
class FastPlanner implements Planner {
  private readonly byCapabilities = new Map<Capabilities, Plan>();
  /** The capabilities planned for last, and their plan: a fleet's lights come product after product. */
  private lastCapabilities: Capabilities | undefined = undefined;
  private lastPlan: Plan | undefined = undefined;

  constructor(private readonly change: CheckedChange) {}

  plan(light: LightView, zones: ResolvedLight['zones']): Plan {
    const caps = light.capabilities;
    if (caps.multizone && zones !== null && zones.length > 0) return planSetState(this.change, light, { fast: true, zones });
    if (caps === this.lastCapabilities) return this.lastPlan!;
    let plan = this.byCapabilities.get(caps);
    if (plan === undefined) {
      plan = planSetState(this.change, light, { fast: true, zones: null });
      this.byCapabilities.set(caps, plan);
    }
    this.lastCapabilities = caps;
    this.lastPlan = plan;
    return plan;
  }
}

/** The operations that take a part (`label:Ceiling|uplight`); the others act on whole lights (PART_UNSUPPORTED). */
export const PART_OPERATIONS: ReadonlySet<SelectorOperationName> = new Set(['setState', 'toggle', 'stateDelta', 'cycle']);

/** PART_UNSUPPORTED when an operation that acts on whole lights is given a selector naming a part. */
function refuseParts(name: SelectorOperationName, selector: string): void {
  if (PART_OPERATIONS.has(name) || typeof selector !== 'string' || !selector.includes('|')) return;
  if (!parseSelectors(selector, { percentDecode: false }).some((s) => s.part !== undefined)) return;
  throw new LightwireError('PART_UNSUPPORTED', { selector, operation: OPERATIONS[name].summary, takes: [...PART_OPERATIONS].map((n) => OPERATIONS[n].summary).join(', ') });
}

/** The part each light was named by, by serial. */
function partsByLight(targets: readonly ResolvedLight[]): Map<string, NonNullable<ResolvedLight['part']>> {
  const parts = new Map<string, NonNullable<ResolvedLight['part']>>();
  for (const t of targets) if (t.part !== undefined) parts.set(t.light.serial, t.part);
  return parts;
}

/** A part's light whose zones (or pixels) are not known: fast mode reads it once first. */
function partUnread(light: LightView): boolean {
  return zoneCount(light) === null || zonesShown(light) === null;
}

/** Whether fast mode reads a light before planning it (Writes.sized): online, named by a part if `partsOnly`, and `unknown`. */
function unsized(t: ResolvedLight, unknown: (light: LightView) => boolean, partsOnly: boolean): boolean {
  return t.light.online && (!partsOnly || t.part !== undefined) && unknown(t.light);
}

export class Writes {
  /** Labels, groups and locations (naming.ts). */
  readonly naming: Naming;

  constructor(private readonly context: WriteContext) {
    this.naming = new Naming(context);
  }

  /** The brightness each part had when a write turned it off (part-plan.ts), by serial and part. */
  private readonly partMemory: PartMemory = new Map();

  /** One checked operation on the lights a selector names. */
  perform<N extends SelectorOperationName>(name: N, selector: string, checked: Checked<N>, fast: boolean, latestWins = false): Promise<LightResult[]> {
    refuseParts(name, selector);
    switch (name) {
      case 'setState':
        return this.apply(this.context.resolve(selector), stateChangeOf(checked as unknown as Checked<'setState'>, this.context.defaultDurationS), fast, latestWins);
      case 'toggle':
        return this.toggle(selector, checked as unknown as Checked<'toggle'>, fast);
      case 'stateDelta':
        return this.delta(selector, checked as unknown as Checked<'stateDelta'>, fast);
      case 'cycle':
        return this.cycle(selector, checked as unknown as Checked<'cycle'>, fast);
      case 'paint':
        return this.paint(selector, checked as unknown as Checked<'paint'>, fast);
      case 'theme':
        return this.theme(selector, checked as unknown as Checked<'theme'>, fast);
      // Renaming is always confirmed: a fast rename could not say which lights have the new name.
      case 'setLabel':
        return this.naming.setLabel(selector, checked as unknown as Checked<'setLabel'>);
      case 'setGroup':
        return this.naming.moveTo('group', selector, (checked as unknown as Checked<'setGroup'>).group);
      case 'setLocation':
        return this.naming.moveTo('location', selector, (checked as unknown as Checked<'setLocation'>).location);
      default: {
        const effect = name as EffectOperationName;
        const decl = OPERATIONS[effect];
        const planFor = planEffect(effect, checked as unknown as Checked<typeof effect>);
        const minMajor = 'firmware' in decl ? FIRMWARE_EFFECT_MIN_MAJOR[decl.firmware] : undefined;
        const needs = 'needs' in decl ? { operation: effect === 'clean' ? 'clean' : `run ${effect}`, capability: decl.needs, minMajor } : undefined;
        return this.run(selector, planFor, decl.read, fast, needs);
      }
    }
  }

  /** Set States: every operation merged over `defaults` and checked before anything is sent. */
  async setStates(operations: readonly SetStatesOperation[], defaults: SetStateRequest, fast: boolean): Promise<SetStatesResult[]> {
    if (!Array.isArray(operations) || operations.length === 0) throw invalid('states', 'must be a non-empty array');
    if (operations.length > MAX_STATES) throw new LightwireError('STATES_TOO_MANY', { count: operations.length, max: MAX_STATES });
    // Validate everything before anything is sent.
    const prepared = operations.map((op, i) => {
      const operation: SetStatesOperation = { ...defaults, ...op };
      if (typeof operation.selector !== 'string') throw invalid(`states[${i}].selector`, 'is missing');
      const change = this.context.stateChange(operation, `states[${i}].`);
      parseSelectors(operation.selector, { percentDecode: false });
      return { operation, change };
    });
    return Promise.all(
      prepared.map(async ({ operation, change }): Promise<SetStatesResult> => {
        let targets: ResolvedLight[];
        try {
          targets = this.context.resolve(operation.selector);
        } catch (err) {
          if (err instanceof LightwireError && err.code === 'LIGHTS_NOT_FOUND') {
            return { operation, error: 'not found', code: err.code };
          }
          throw err;
        }
        return { operation, results: await this.apply(targets, change, fast) };
      }),
    );
  }

  /**
   * Activate Scene: each stored state becomes a Set State on its selector, every one checked before anything is sent;
   * a state with a picture (zones, pixels, an effect) brings that back (scene-restore.ts).
   */
  async activateScene(scene: Scene, checked: Checked<'activateScene'>, fast: boolean): Promise<LightResult[]> {
    const pictures = picturesOf(scene);
    const jobs = scene.states.map((state, i) => {
      const change = sceneActivation().sceneStateToChange(state, checked);
      const request = {
        ...(change.power !== undefined ? { power: change.power } : {}),
        ...(change.colorString !== undefined ? { color: change.colorString } : change.color !== undefined && Object.keys(change.color).length > 0 ? { color: change.color } : {}),
        ...(change.brightness !== undefined ? { brightness: change.brightness } : {}),
        ...(change.infrared !== undefined ? { infrared: change.infrared } : {}),
        durationS: change.durationS,
      };
      return { selector: change.selector, change: this.context.stateChange(request, `states[${i}].`), picture: pictureJob(pictures[i], change, checked) };
    });
    const results = await Promise.all(
      jobs.map(async ({ selector, change, picture }) => {
        let targets: ResolvedLight[];
        try {
          targets = this.context.resolve(selector);
        } catch (err) {
          // A light of the scene that is gone is skipped; the others still change.
          if (err instanceof LightwireError && err.code === 'LIGHTS_NOT_FOUND') return [];
          throw err;
        }
        return picture === undefined ? this.apply(targets, change, fast) : restorePicture(this.context, targets, picture, change, fast);
      }),
    );
    return results.flat();
  }

  /** Runs one checked change on resolved lights; `latestWins`: WriteOptions.latestWins. */
  async apply(resolved: readonly ResolvedLight[], change: CheckedChange, fast: boolean, latestWins = false): Promise<LightResult[]> {
    // A part whose zones are not known is read first; a call with none to read goes on at once (no promise per light).
    const targets = fast && resolved.some((t) => unsized(t, partUnread, true)) ? await this.sized(resolved, partUnread, true) : resolved;
    const partOf = partsByLight(targets);
    if (partOf.size > 0) {
      const planFor: PlanFor = (light, zones) => {
        const part = partOf.get(light.serial);
        return part !== undefined ? planPart(change, light, part, fast, this.partMemory) : planSetState(change, light, { fast, zones });
      };
      const options: ExecuteOptions = { fast, deadlineMs: this.context.deadlineMs, read: 'state+zones', zonesOf: (light) => partOf.has(light.serial) };
      return this.context.executor.run(targets, planFor, options);
    }
    const needsZones = targets.some((t) => t.zones !== null && t.light.capabilities.multizone);
    // Zones are always read (a strip's zones are painted over what it shows); a change without a colour (power,
    // infrared) plans the same whatever the light shows; a colour is planned from what the service knows of the light
    // when that is fresh (our own writes and recent reads), else from a read.
    const read: ExecuteOptions['read'] = needsZones ? 'state+zones' : change.color === undefined ? 'none' : 'cached-state';
    // A strip asked for part of a colour keeps its zones' own colours: they are read first (planSetState), except
    // within a latest-wins stream (Executor: STREAM_TRUST_MS).
    // A latest-wins write to whole lights may be replaced by a newer one while it waits its turn (light-lanes.ts);
    // one to some zones sets only those, which a field list does not say.
    const fields = latestWins && !fast && targets.every((t) => t.zones === null) ? fieldsSet(change) : undefined;
    const options: ExecuteOptions = { fast, deadlineMs: this.context.deadlineMs, read, freshStateMs: this.context.freshStateMs, zonesOf: (light) => usesZones(change, light), fields };
    return this.context.executor.run(targets, fast ? new FastPlanner(change) : (light, zones) => planSetState(change, light, { fast, zones }), options);
  }

  private async toggle(selector: string, request: Checked<'toggle'>, fast: boolean): Promise<LightResult[]> {
    const targets = this.context.resolve(selector);
    // A part is on while the light is on and the part is lit (parts.ts).
    const anyOn = targets.some((t) => t.light.online && (t.part !== undefined ? partView(t.light, t.part).power : t.light.power) === 'on');
    const power = anyOn ? 'off' : 'on';
    const results = await this.apply(targets, trustedChange({ power, durationS: request.durationS ?? this.context.defaultDurationS }), fast);
    return results.map((r) => (r.status === 'ok' ? { ...r, power } : r));
  }

  /**
   * Resolves, checks the plan of every light before anything is sent (so a bad parameter is a 422 for the
   * whole request, never half-applied), then runs it.
   */
  private async run(
    selector: string,
    planFor: PlanFor,
    read: ExecuteOptions['read'],
    fast: boolean,
    needs?: { operation: string; capability: keyof Capabilities; minMajor?: number | undefined },
  ): Promise<LightResult[]> {
    let targets = this.context.resolve(selector);
    // Lights that cannot run a firmware effect (the capability, and the firmware some effects need) are left out
    // rather than reported `ok` for doing nothing.
    if (needs) {
      const { capability, minMajor } = needs;
      targets = targets.filter((t) => t.light.capabilities[capability] === true && (minMajor === undefined || (t.light.firmware?.major ?? 0) >= minMajor));
      if (targets.length === 0) {
        const needed = minMajor === undefined ? capability : `${capability} and firmware ${minMajor} or later`;
        throw new LightwireError('CAPABILITY_MISSING', { selector, operation: needs.operation, capability: needed });
      }
    }
    for (const t of targets) planFor(t.light, t.zones);
    return this.context.executor.run(targets, planFor, { fast, deadlineMs: this.context.deadlineMs, read });
  }

  /**
   * Paint Pixels on the matrix lights a selector names (others are left out; none: CAPABILITY_MISSING). Planned from
   * what the service knows, except a light whose chain is unknown or that keeps part of its picture: it is read first.
   */
  private async paint(selector: string, request: Checked<'paint'>, fast: boolean): Promise<LightResult[]> {
    let targets = this.context.resolve(selector).filter((t) => paintable(t.light.capabilities));
    if (targets.length === 0) throw new LightwireError('CAPABILITY_MISSING', { selector, operation: 'paint pixels', capability: 'matrix' });
    if (fast) targets = await this.sized(targets, (light) => light.matrix === null);
    const planFor: PlanFor = (light) => planPaint(request, light, this.context.defaultDurationS);
    // A grid that does not fit a light whose size is known is refused before anything is sent.
    for (const t of targets) planFor(t.light, t.zones);
    return this.context.executor.run(targets, planFor, { fast, deadlineMs: this.context.deadlineMs, read: 'none', zonesOf: (light) => paintNeedsPixels(request, light) });
  }

  /** Paint Theme: the palette over every light named; a strip or matrix whose size is not known yet is read first. */
  private async theme(selector: string, request: Checked<'theme'>, fast: boolean): Promise<LightResult[]> {
    let targets = this.context.resolve(selector);
    if (fast) targets = await this.sized(targets, themeNeedsRead);
    const planFor = planTheme(request, targets, this.context.defaultDurationS);
    return this.context.executor.run(targets, planFor, { fast, deadlineMs: this.context.deadlineMs, read: 'none', zonesOf: themeNeedsRead });
  }

  /**
   * Fast mode plans from what the service knows, but a picture needs the light's size: a light whose chain (or zone
   * count) was never read is read once first, then planned from its new view.
   */
  private async sized(targets: readonly ResolvedLight[], unknown: (light: LightView) => boolean, partsOnly = false): Promise<ResolvedLight[]> {
    return Promise.all(
      targets.map(async (t) => (unsized(t, unknown, partsOnly) ? { ...t, light: (await this.context.reread(t.light.serial)) ?? t.light } : t)),
    );
  }

  private async delta(selector: string, request: Checked<'stateDelta'>, fast: boolean): Promise<LightResult[]> {
    const { applyDelta } = deltas();
    const delta = { ...request, durationS: request.durationS ?? this.context.defaultDurationS };
    const targets = this.context.resolve(selector);
    const partOf = partsByLight(targets);
    // On a strip each zone moves from its own colour, not from the light's one colour; a part moves from its colour.
    const planFor: PlanFor = (light, zones) => {
      const part = partOf.get(light.serial);
      if (part !== undefined) {
        const shown = partView(light, part);
        return planPart(trustedChange(applyDelta({ ...light, color: shown.color, power: shown.power }, delta)), light, part, fast, this.partMemory);
      }
      return planSetState(trustedChange(applyDelta(light, delta)), light, {
        fast,
        zones,
        perZone: (zone) => applyDelta({ ...light, color: zone }, delta).color ?? {},
      });
    };
    const read = targets.some((t) => t.light.capabilities.multizone) ? 'state+zones' : 'state';
    return this.context.executor.run(targets, planFor, { fast, deadlineMs: this.context.deadlineMs, read, zonesOf: (light) => partOf.has(light.serial) });
  }

  private async cycle(selector: string, request: Checked<'cycle'>, fast: boolean): Promise<LightResult[]> {
    const merged = request.states.map((s) => ({ ...request.defaults, ...s }));
    const changes = merged.map((s, i) => this.context.stateChange(s, `states[${i}].`));
    const targets = this.context.resolve(selector);
    const first = targets.find((t) => t.light.online) ?? targets[0]!;
    // Where the lights are now: the first light read afresh (fast mode takes what the service knows).
    const current = (!fast && first.light.online ? await this.context.reread(first.light.serial) : undefined) ?? first.light;
    const index = deltas().nextCycleState(changes, current, request.direction);
    return this.apply(targets, changes[index]!, fast);
  }

  // ---- LIFX Switch relays (https://lan.developer.lifx.com/docs/the-lifx-switch) ----

  relays(serial: string): Promise<RelayState[]> {
    return this.context.executor.readRelays(this.relayDevice(serial, 'read relays'), this.context.deadlineMs);
  }

  setRelayPower(serial: string, relayIndex: number, on: boolean, fast: boolean): Promise<LightResult> {
    if (!Number.isInteger(relayIndex) || relayIndex < 0 || relayIndex >= RELAYS_MAX) {
      throw invalid('relayIndex', `must be an integer from 0 to ${RELAYS_MAX - 1}`);
    }
    if (typeof on !== 'boolean') throw invalid('on', 'must be true or false');
    const device = this.relayDevice(serial, 'switch a relay');
    return this.context.executor.setRelay(device, relayIndex, on, { fast, deadlineMs: this.context.deadlineMs });
  }

  private relayDevice(serial: string, operation: string): LightView {
    const view = typeof serial === 'string' ? this.context.light(serial.toLowerCase()) : undefined;
    const selector = `id:${String(serial)}`;
    if (view === undefined) throw new LightwireError('LIGHTS_NOT_FOUND', { selector });
    if (!view.capabilities.relays) throw new LightwireError('CAPABILITY_MISSING', { selector, operation, capability: 'relays' });
    return view;
  }
}

// The light service: the one API that the HTTP endpoint, the Node-RED nodes, the Homebridge platform and
// the CLI call, so a HomeKit slider, a flow and `PUT /v1/lights/:selector/state` behave identically.
// Requests arrive in user units (seconds, 0-1, colour strings); every check happens here, once.

import { randomInt } from 'node:crypto';
import type { LightClient } from '../discovery/client.js';
import type { Capabilities } from '../protocol/index.js';
import { LightwireError } from '../errors.js';
import { parseColor, validateColor, withBrightness, type ValidatedColor } from './colors.js';
import { applyDelta, nextCycleState, type StateDelta } from './delta.js';
import {
  planBreathe,
  planClean,
  planClouds,
  planEffectsOff,
  planFlame,
  planMorph,
  planMove,
  planPulse,
  planSunrise,
  planSunset,
  type MoveDirection,
} from './effects.js';
import { Executor, type ExecuteOptions, type PlanFor } from './executor.js';
import { planSetState } from './planner.js';
import { sceneStateToChange, type Scene, type SceneActivation, type SceneStore } from './scene-store.js';
import { parseSelectors, resolveSelectors } from './selectors.js';
import type { LightResult, LightView, PartialHsbk, ResolvedLight, StateChange } from './types.js';
import { groupNames, lightView, v1Light, type V1Light } from './views.js';

/** The longest duration the API accepts: 100 years (http-api-v1.md §7.2). */
export const DURATION_MAX_S = 3_155_760_000;
export const MAX_STATES = 50;
export const DEFAULT_DURATION_S = 1;

export interface SetStateRequest {
  readonly power?: 'on' | 'off';
  /** A colour string (http-api-v1.md §6). */
  readonly color?: string;
  readonly brightness?: number;
  readonly infrared?: number;
  /** Seconds; default 1. */
  readonly durationS?: number;
}

export interface WriteOptions {
  /** End-state messages only, no read, no reply awaited (http-api-v1.md §4.5). */
  readonly fast?: boolean;
}

export interface SetStatesOperation extends SetStateRequest {
  readonly selector: string;
}

export type SetStatesResult =
  | { readonly operation: SetStatesOperation; readonly results: LightResult[] }
  | { readonly operation: SetStatesOperation; readonly error: string; readonly code: string };

export interface WaveformRequest {
  /** Required colour string. */
  readonly color: string;
  readonly fromColor?: string;
  readonly periodS?: number;
  readonly cycles?: number;
  readonly persist?: boolean;
  readonly powerOn?: boolean;
}

export interface BreatheRequest extends WaveformRequest {
  readonly peak?: number;
}

export interface MoveRequest {
  readonly direction?: MoveDirection;
  readonly periodS?: number;
  /** Omitted = until stopped; 0 switches the effect off. */
  readonly cycles?: number;
  readonly powerOn?: boolean;
}

export interface MorphRequest {
  readonly periodS?: number;
  /** Omitted = until stopped; 0 switches the effect off. */
  readonly durationS?: number;
  /** Colour strings, at most 16. */
  readonly palette?: readonly string[];
  readonly powerOn?: boolean;
}

export interface FlameRequest {
  readonly periodS?: number;
  readonly durationS?: number;
  readonly powerOn?: boolean;
}

export interface SkyRequest {
  readonly durationS?: number;
  readonly powerOn?: boolean;
}

export interface StateDeltaRequest {
  readonly power?: 'on' | 'off';
  readonly durationS?: number;
  readonly hue?: number;
  readonly saturation?: number;
  readonly brightness?: number;
  readonly kelvin?: number;
  readonly infrared?: number;
}

export interface CycleRequest {
  /** 2 to 5 Set State hashes. */
  readonly states: readonly SetStateRequest[];
  readonly defaults?: SetStateRequest;
  readonly direction?: 'forward' | 'backward';
}

/** A fresh effect instance id, as photons sends (the firmware tells effects apart by it). */
function newInstanceId(): number {
  return randomInt(1, 0x1_0000_0000);
}

export const CYCLE_STATES_MIN = 2;
export const CYCLE_STATES_MAX = 5;

export interface LightServiceOptions {
  /** Per light, for the read, every step and every retry (HTTP clients give up after 5-10 s). */
  readonly deadlineMs?: number;
  /** Where scenes live; without it, scene operations fail with SCENE_NOT_FOUND and `scene_id:` matches nothing. */
  readonly scenes?: SceneStore;
  /** For `:random` selectors and the `random` colour. */
  readonly random?: () => number;
}

function invalid(field: string, reason: string): LightwireError<'PARAMETER_INVALID'> {
  return new LightwireError('PARAMETER_INVALID', { field, reason });
}

export function checkFraction(field: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
    throw invalid(field, 'must be a number from 0.0 to 1.0');
  }
  return value;
}

export function checkDuration(field: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > DURATION_MAX_S) {
    throw invalid(field, `must be a number of seconds from 0 to ${DURATION_MAX_S}`);
  }
  return value;
}

export function checkPower(field: string, value: unknown): 'on' | 'off' | undefined {
  if (value === undefined) return undefined;
  if (value !== 'on' && value !== 'off') throw invalid(field, 'must be "on" or "off"');
  return value;
}

/** Checks a Set State request and turns it into the planner's input. `field` prefixes error fields. */
export function stateChangeFrom(request: SetStateRequest, field = '', random: () => number = Math.random): StateChange {
  if (typeof request !== 'object' || request === null) throw invalid(field || 'body', 'must be an object');
  const f = (name: string): string => (field ? `${field}.${name}` : name);
  const power = checkPower(f('power'), request.power);
  const brightness = checkFraction(f('brightness'), request.brightness);
  const infrared = checkFraction(f('infrared'), request.infrared);
  const durationS = checkDuration(f('duration'), request.durationS, DEFAULT_DURATION_S);
  let color;
  if (request.color !== undefined) {
    if (typeof request.color !== 'string') throw invalid(f('color'), 'must be a colour string');
    color = parseColor(request.color, { random });
  }
  const merged = withBrightness(color, brightness);
  return {
    ...(power !== undefined ? { power } : {}),
    ...(merged !== undefined ? { color: merged } : {}),
    ...(brightness !== undefined ? { brightness } : {}),
    ...(infrared !== undefined ? { infrared } : {}),
    durationS,
  };
}

export class LightService {
  readonly client: LightClient;
  private readonly executor: Executor;
  private readonly deadlineMs: number;
  private readonly random: () => number;
  readonly scenes: SceneStore | undefined;

  constructor(client: LightClient, options: LightServiceOptions = {}) {
    this.client = client;
    this.executor = new Executor(client);
    this.deadlineMs = options.deadlineMs ?? 4000;
    if (!Number.isInteger(this.deadlineMs) || this.deadlineMs < 1) {
      throw new LightwireError('OPTIONS_INVALID', { option: 'deadlineMs', reason: 'must be a positive integer' });
    }
    this.random = options.random ?? Math.random;
    this.scenes = options.scenes;
  }

  /** Every known light, in serial order. */
  views(): LightView[] {
    const names = groupNames(this.client.registry);
    return this.client.registry.peekAll().map((r) => lightView(r, names));
  }

  /**
   * The lights a selector names: SELECTOR_INVALID / SELECTOR_TOO_MANY / LIGHTS_NOT_FOUND otherwise. The text is
   * taken as written: a face that reads selectors from URLs percent-decodes them once itself.
   */
  resolve(selector: string): ResolvedLight[] {
    const parsed = parseSelectors(selector, { percentDecode: false });
    return resolveSelectors(parsed, this.views(), {
      random: this.random,
      ...(this.scenes ? { sceneSelectors: this.scenes.sceneSelectors } : {}),
    });
  }

  /** List Lights (http-api-v1.md §7.1). */
  list(selector = 'all'): V1Light[] {
    const now = Date.now();
    return this.resolve(selector).map((r) => {
      const effect = this.client.registry.peek(r.light.serial)?.facts.effect?.value ?? 'OFF';
      return v1Light(r.light, now, effect);
    });
  }

  /** Validate Color (http-api-v1.md §6.4). */
  validateColor(text: string): ValidatedColor {
    return validateColor(text, { random: this.random });
  }

  /** Checks a Set State request and turns it into the planner's input. `field` prefixes error fields. */
  stateChange(request: SetStateRequest, field = ''): StateChange {
    return stateChangeFrom(request, field, this.random);
  }

  /** Set State (http-api-v1.md §7.2). */
  async setState(selector: string, request: SetStateRequest, options: WriteOptions = {}): Promise<LightResult[]> {
    const change = this.stateChange(request);
    const targets = this.resolve(selector);
    return this.apply(targets, change, options.fast === true);
  }

  /** Set States (http-api-v1.md §7.3): at most 50 operations, each merged over `defaults`. */
  async setStates(
    operations: readonly SetStatesOperation[],
    defaults: SetStateRequest = {},
    options: WriteOptions = {},
  ): Promise<SetStatesResult[]> {
    if (!Array.isArray(operations) || operations.length === 0) throw invalid('states', 'must be a non-empty array');
    if (operations.length > MAX_STATES) throw new LightwireError('STATES_TOO_MANY', { count: operations.length, max: MAX_STATES });
    // Validate everything before anything is sent.
    const prepared = operations.map((op, i) => {
      const operation: SetStatesOperation = { ...defaults, ...op };
      if (typeof operation.selector !== 'string') throw invalid(`states[${i}].selector`, 'is missing');
      const change = this.stateChange(operation, `states[${i}]`);
      parseSelectors(operation.selector, { percentDecode: false });
      return { operation, change };
    });
    return Promise.all(
      prepared.map(async ({ operation, change }): Promise<SetStatesResult> => {
        let targets: ResolvedLight[];
        try {
          targets = this.resolve(operation.selector);
        } catch (err) {
          if (err instanceof LightwireError && err.code === 'LIGHTS_NOT_FOUND') {
            return { operation, error: 'not found', code: err.code };
          }
          throw err;
        }
        return { operation, results: await this.apply(targets, change, options.fast === true) };
      }),
    );
  }

  /** Runs one validated change on resolved lights. */
  apply(targets: readonly ResolvedLight[], change: StateChange, fast: boolean): Promise<LightResult[]> {
    const needsZones = targets.some((t) => t.zones !== null && t.light.capabilities.multizone);
    const options: ExecuteOptions = { fast, deadlineMs: this.deadlineMs, read: needsZones ? 'state+zones' : 'state' };
    return this.executor.run(targets, (light, zones) => planSetState(change, light, { fast, zones }), options);
  }

  /** Toggle Power (http-api-v1.md §7.5): any light on -> all off, else all on. Results carry the new power. */
  async toggle(selector: string, request: { durationS?: number } = {}, options: WriteOptions = {}): Promise<LightResult[]> {
    const durationS = checkDuration('duration', request.durationS, DEFAULT_DURATION_S);
    const targets = this.resolve(selector);
    const anyOn = targets.some((t) => t.light.online && t.light.power === 'on');
    const power = anyOn ? 'off' : 'on';
    const results = await this.apply(targets, { power, durationS }, options.fast === true);
    return results.map((r) => (r.status === 'ok' ? { ...r, power } : r));
  }

  // ---- scenes (http-api-v1.md §7.17, §7.18) ----

  private sceneStore(sceneId: string): SceneStore {
    if (!this.scenes) throw new LightwireError('SCENE_NOT_FOUND', { sceneId });
    return this.scenes;
  }

  /** List Scenes. */
  listScenes(): Scene[] {
    return this.scenes ? this.scenes.list() : [];
  }

  /** Captures the current state of the lights a selector names as a scene (replacing one of the same name). */
  async captureScene(name: string, selector = 'all'): Promise<Scene> {
    if (!this.scenes) throw new LightwireError('OPTIONS_INVALID', { option: 'scenes', reason: 'no scene file is configured' });
    const targets = this.resolve(selector).filter((t) => t.light.online);
    // Capture what the lights show now, not what the cache last saw.
    await Promise.all(targets.map((t) => this.client.refreshState(t.light.serial, this.deadlineMs)));
    const fresh = this.resolve(selector).filter((t) => t.light.online).map((t) => t.light);
    if (fresh.length === 0) throw new LightwireError('LIGHTS_NOT_FOUND', { selector });
    return this.scenes.capture(name, fresh);
  }

  /** Activate Scene: each stored state becomes a Set State on its selector; `duration`, `ignore`, `overrides`. */
  async activateScene(sceneId: string, activation: SceneActivation = {}, options: WriteOptions = {}): Promise<LightResult[]> {
    const scene = this.sceneStore(sceneId).get(sceneId);
    // Validate every state before anything is sent.
    const jobs = scene.states.map((state, i) => {
      const change = sceneStateToChange(state, activation);
      const color = change.colorString !== undefined ? parseColor(change.colorString, { random: this.random }) : change.color;
      const merged = withBrightness(color, change.brightness);
      const stateChange: StateChange = {
        ...(change.power !== undefined ? { power: change.power } : {}),
        ...(merged !== undefined ? { color: merged } : {}),
        ...(change.brightness !== undefined ? { brightness: change.brightness } : {}),
        ...(change.infrared !== undefined ? { infrared: checkFraction(`states[${i}].infrared`, change.infrared)! } : {}),
        durationS: change.durationS,
      };
      return { selector: change.selector, change: stateChange };
    });
    const results = await Promise.all(
      jobs.map(async ({ selector, change }) => {
        let targets: ResolvedLight[];
        try {
          targets = this.resolve(selector);
        } catch (err) {
          // A light of the scene that is gone is skipped; the others still change.
          if (err instanceof LightwireError && err.code === 'LIGHTS_NOT_FOUND') return [];
          throw err;
        }
        return this.apply(targets, change, options.fast === true);
      }),
    );
    return results.flat();
  }

  // ---- state delta, effects, clean, cycle (http-api-v1.md §7.4, §7.6-7.16) ----

  /**
   * Resolves, checks the plan of every light before anything is sent (so a bad parameter is a 422 for the
   * whole request, never half-applied), then runs it.
   */
  private async run(
    selector: string,
    planFor: PlanFor,
    read: ExecuteOptions['read'],
    fast: boolean,
    needs?: { operation: string; capability: keyof Capabilities },
  ): Promise<LightResult[]> {
    let targets = this.resolve(selector);
    // Lights that cannot run a firmware effect are left out rather than reported `ok` for doing nothing.
    if (needs) {
      targets = targets.filter((t) => t.light.capabilities[needs.capability] === true);
      if (targets.length === 0) {
        throw new LightwireError('CAPABILITY_MISSING', { selector, operation: needs.operation, capability: needs.capability });
      }
    }
    for (const t of targets) planFor(t.light, t.zones);
    return this.executor.run(targets, planFor, { fast, deadlineMs: this.deadlineMs, read });
  }

  private color(field: string, text: unknown): PartialHsbk {
    if (typeof text !== 'string') throw new LightwireError('PARAMETER_MISSING', { field });
    return parseColor(text, { random: this.random });
  }

  /** State Delta (§7.4): power and duration absolute, the rest relative to each light's current state. */
  async stateDelta(selector: string, request: StateDeltaRequest, options: WriteOptions = {}): Promise<LightResult[]> {
    const delta: StateDelta = { ...request, durationS: checkDuration('duration', request.durationS, DEFAULT_DURATION_S) };
    const fast = options.fast === true;
    const targets = this.resolve(selector);
    // Checks the request on a light with a known colour (the real lights are read before planning).
    const probe: LightView = { ...targets[0]!.light, color: { hue: 0, saturation: 0, brightness: 0, kelvin: 3500 }, infrared: 0 };
    applyDelta(probe, delta);
    const planFor: PlanFor = (light, zones) => planSetState(applyDelta(light, delta), light, { fast, zones });
    return this.executor.run(targets, planFor, { fast, deadlineMs: this.deadlineMs, read: 'state' });
  }

  async breathe(selector: string, request: BreatheRequest, options: WriteOptions = {}): Promise<LightResult[]> {
    const color = this.color('color', request.color);
    const fromColor = request.fromColor === undefined ? undefined : this.color('from_color', request.fromColor);
    const r = { ...request, color, ...(fromColor ? { fromColor } : { fromColor: undefined }) };
    return this.run(selector, (light) => planBreathe(r, light), 'state', options.fast === true);
  }

  async pulse(selector: string, request: WaveformRequest, options: WriteOptions = {}): Promise<LightResult[]> {
    const color = this.color('color', request.color);
    const fromColor = request.fromColor === undefined ? undefined : this.color('from_color', request.fromColor);
    const r = { ...request, color, ...(fromColor ? { fromColor } : { fromColor: undefined }) };
    return this.run(selector, (light) => planPulse(r, light), 'state', options.fast === true);
  }

  async move(selector: string, request: MoveRequest = {}, options: WriteOptions = {}): Promise<LightResult[]> {
    const r = { ...request, instanceId: newInstanceId() };
    return this.run(selector, (light) => planMove(r, light), 'state', options.fast === true, { operation: 'run move', capability: 'multizone' });
  }

  async morph(selector: string, request: MorphRequest = {}, options: WriteOptions = {}): Promise<LightResult[]> {
    if (request.palette !== undefined && !Array.isArray(request.palette)) {
      throw new LightwireError('PARAMETER_INVALID', { field: 'palette', reason: 'must be a list of colour strings' });
    }
    const palette = request.palette?.map((c, i) => this.color(`palette[${i}]`, c));
    const r = { ...request, palette, instanceId: newInstanceId() };
    return this.run(selector, (light) => planMorph(r, light), 'state', options.fast === true, { operation: 'run morph', capability: 'matrix' });
  }

  async flame(selector: string, request: FlameRequest = {}, options: WriteOptions = {}): Promise<LightResult[]> {
    const r = { ...request, instanceId: newInstanceId() };
    return this.run(selector, (light) => planFlame(r, light), 'state', options.fast === true, { operation: 'run flame', capability: 'matrix' });
  }

  async clouds(selector: string, request: SkyRequest = {}, options: WriteOptions = {}): Promise<LightResult[]> {
    const r = { ...request, instanceId: newInstanceId() };
    return this.run(selector, (light) => planClouds(r, light), 'state', options.fast === true, { operation: 'run clouds', capability: 'matrix' });
  }

  async sunrise(selector: string, request: SkyRequest = {}, options: WriteOptions = {}): Promise<LightResult[]> {
    const r = { ...request, instanceId: newInstanceId() };
    return this.run(selector, (light) => planSunrise(r, light), 'state', options.fast === true, { operation: 'run sunrise', capability: 'matrix' });
  }

  async sunset(selector: string, request: SkyRequest = {}, options: WriteOptions = {}): Promise<LightResult[]> {
    const r = { ...request, instanceId: newInstanceId() };
    return this.run(selector, (light) => planSunset(r, light), 'state', options.fast === true, { operation: 'run sunset', capability: 'matrix' });
  }

  async effectsOff(selector: string, request: { powerOff?: boolean } = {}, options: WriteOptions = {}): Promise<LightResult[]> {
    return this.run(selector, (light) => planEffectsOff(request, light), 'state', options.fast === true);
  }

  async clean(selector: string, request: { stop?: boolean; durationS?: number } = {}, options: WriteOptions = {}): Promise<LightResult[]> {
    return this.run(selector, (light) => planClean(request, light), 'none', options.fast === true, { operation: 'clean', capability: 'hev' });
  }

  /**
   * Cycle (§7.16): works out where the lights are in the list (from the first light's current state) and
   * moves them all to the next entry, so a client just repeats the same request.
   */
  async cycle(selector: string, request: CycleRequest, options: WriteOptions = {}): Promise<LightResult[]> {
    const states = request?.states;
    if (!Array.isArray(states)) throw new LightwireError('PARAMETER_MISSING', { field: 'states' });
    if (states.length < CYCLE_STATES_MIN || states.length > CYCLE_STATES_MAX) {
      throw new LightwireError('PARAMETER_INVALID', { field: 'states', reason: `must hold ${CYCLE_STATES_MIN} to ${CYCLE_STATES_MAX} states` });
    }
    const direction = request.direction ?? 'forward';
    if (direction !== 'forward' && direction !== 'backward') {
      throw new LightwireError('PARAMETER_INVALID', { field: 'direction', reason: 'must be "forward" or "backward"' });
    }
    const merged = states.map((s) => ({ ...request.defaults, ...s }));
    const changes = merged.map((s, i) => this.stateChange(s, `states[${i}]`));
    const targets = this.resolve(selector);
    const first = targets.find((t) => t.light.online) ?? targets[0]!;
    if (options.fast !== true && first.light.online) await this.client.refreshState(first.light.serial, this.deadlineMs);
    const record = this.client.registry.get(first.light.serial);
    const current = record ? lightView(record, groupNames(this.client.registry)) : first.light;
    const index = nextCycleState(changes, current, direction);
    return this.apply(targets, changes[index]!, options.fast === true);
  }
}

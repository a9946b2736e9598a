// The light service: the one API that the HTTP endpoint, the Node-RED nodes, the Homebridge platform and
// the CLI call, so a HomeKit slider, a flow and `PUT /v1/lights/:selector/state` behave identically.
// Requests arrive in user units (seconds, 0-1, colour strings); every check happens here, once.

import type { LightClient } from '../discovery/client.js';
import { LightwireError } from '../errors.js';
import { parseColor, validateColor, withBrightness, type ValidatedColor } from './colors.js';
import { Executor, type ExecuteOptions } from './executor.js';
import { planSetState } from './planner.js';
import { sceneStateToChange, type Scene, type SceneActivation, type SceneStore } from './scene-store.js';
import { parseSelectors, resolveSelectors } from './selectors.js';
import type { LightResult, LightView, ResolvedLight, StateChange } from './types.js';
import { lightView, v1Light, type V1Light } from './views.js';

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
    return this.client.registry.all().map((r) => lightView(r, this.client.registry));
  }

  /** The lights a selector names: SELECTOR_INVALID / SELECTOR_TOO_MANY / LIGHTS_NOT_FOUND otherwise. */
  resolve(selector: string): ResolvedLight[] {
    const parsed = parseSelectors(selector);
    return resolveSelectors(parsed, this.views(), {
      random: this.random,
      ...(this.scenes ? { sceneSelectors: this.scenes.sceneSelectors } : {}),
    });
  }

  /** List Lights (http-api-v1.md §7.1). */
  list(selector = 'all'): V1Light[] {
    const now = Date.now();
    return this.resolve(selector).map((r) => {
      const effect = this.client.registry.get(r.light.serial)?.facts.effect?.value ?? 'OFF';
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
      parseSelectors(operation.selector);
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
}

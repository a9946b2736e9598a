// The scene file's format, `{ "version": 1, "scenes": [Scene, ...] }` (scenes in list order, pretty-printed): the
// Scene shape as the HTTP API lists it (List Scenes), the checks that load the file, and a light's captured state.
// A state in the file may also carry the light's picture (`zones`, `pixels`, `effect`: scene-picture.ts), kept beside
// the Scene rather than in it. Pure: no I/O.

import { LightwireError, quoted } from '../errors.js';
import { DURATION_MAX_S, KELVIN_MAX, KELVIN_MIN, type PowerState } from '../protocol/index.js';
import { CHECK_TEXT } from './requests.js';
import { parsePicture, PICTURE_KEYS, withPictures, type LightPicture } from './scene-picture.js';
import type { LightView } from './types.js';

// ---- the API shape (List Scenes) ----

export interface SceneColor {
  /** Degrees, 0-360. */
  readonly hue: number;
  /** 0-1. */
  readonly saturation: number;
  /** Integer, 1500-9000 (the colour-string range). */
  readonly kelvin: number;
}

/**
 * One light's part of a scene, keys as the API emits them. `selector` plus any of `power`,
 * `brightness` (0-1) and `color`. Two extensions, both optional and both named by the
 * activation's `ignore` list: `infrared` (0-1; captured from lights with infrared, whose IR
 * level is part of what a scene restores) and `duration` (seconds; never captured, honoured when a
 * hand-written or imported file carries it, and overridden by the activation's duration).
 */
export interface SceneState {
  readonly brightness?: number;
  readonly color?: SceneColor;
  readonly duration?: number;
  readonly infrared?: number;
  readonly power?: PowerState;
  readonly selector: string;
}

/** A scene as `GET /scenes` lists it; timestamps are Unix seconds. */
export interface Scene {
  readonly uuid: string;
  readonly name: string;
  readonly account: { readonly uuid: string };
  readonly states: readonly SceneState[];
  readonly created_at: number;
  readonly updated_at: number;
}

export const SCENE_FILE_VERSION = 1;
export const SCENE_NAME_MAX_CHARS = 64;
/** Owner of captured scenes when no account is configured: there is no cloud account locally. */
export const LOCAL_ACCOUNT_UUID = '00000000-0000-0000-0000-000000000000';

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// ---- validation shared by the file loader and the public methods ----

export class Invalid extends Error {}

export type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkKeys(value: Record<string, unknown>, allowed: readonly string[], where: string): void {
  for (const key of Object.keys(value)) {
    // Unknown keys are rejected rather than dropped: the next write would otherwise lose them silently.
    if (!allowed.includes(key)) throw new Invalid(`${where} has an unknown key ${quoted(key)}`);
  }
}

export function inRange(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max;
}

function checkNumber(value: unknown, min: number, max: number, where: string): number {
  if (!inRange(value, min, max)) throw new Invalid(`${where} must be a number from ${min} to ${max}`);
  return value;
}

/** A bad argument to a public method: the store's capture and rename, activation's ignore and overrides. */
export function parameterInvalid(field: string, reason: string): LightwireError<'PARAMETER_INVALID'> {
  return new LightwireError('PARAMETER_INVALID', { field, reason });
}

/** Trimmed, 1-64 characters (code points); returns the reason it is not, or the name. */
/** Why `name` cannot name a scene, or null when it can (checked again by capture and rename). */
export function sceneNameProblem(name: unknown): string | null {
  if (typeof name !== 'string') return 'must be a string';
  const trimmed = name.trim();
  if (trimmed.length === 0) return 'must not be empty';
  if ([...trimmed].length > SCENE_NAME_MAX_CHARS) return `must be at most ${SCENE_NAME_MAX_CHARS} characters`;
  return null;
}

/** One state of the file, and its picture (scene-picture.ts: the optional `zones`, `pixels` and `effect`). */
function parseState(raw: unknown, where: string): { state: SceneState; picture: LightPicture | undefined } {
  if (!isRecord(raw)) throw new Invalid(`${where} must be an object`);
  checkKeys(raw, ['selector', 'power', 'brightness', 'color', 'infrared', 'duration', ...PICTURE_KEYS], where);
  if (typeof raw.selector !== 'string' || raw.selector.trim() === '') {
    throw new Invalid(`${where}.selector must be a non-empty string`);
  }
  const state: Mutable<SceneState> = { selector: raw.selector };
  if (raw.brightness !== undefined) state.brightness = checkNumber(raw.brightness, 0, 1, `${where}.brightness`);
  if (raw.color !== undefined) {
    const c = raw.color;
    if (!isRecord(c)) throw new Invalid(`${where}.color must be an object`);
    // Some cloud scene payloads carry the brightness inside the colour: taken as the state's
    // brightness unless it has its own, which wins as it does in Set State.
    checkKeys(c, ['hue', 'saturation', 'kelvin', 'brightness'], `${where}.color`);
    const kelvin = checkNumber(c.kelvin, KELVIN_MIN, KELVIN_MAX, `${where}.color.kelvin`);
    if (!Number.isInteger(kelvin)) throw new Invalid(`${where}.color.kelvin must be an integer`);
    state.color = Object.freeze({
      hue: checkNumber(c.hue, 0, 360, `${where}.color.hue`),
      saturation: checkNumber(c.saturation, 0, 1, `${where}.color.saturation`),
      kelvin,
    });
    if (c.brightness !== undefined) {
      const inColor = checkNumber(c.brightness, 0, 1, `${where}.color.brightness`);
      state.brightness ??= inColor;
    }
  }
  if (raw.duration !== undefined) state.duration = checkNumber(raw.duration, 0, DURATION_MAX_S, `${where}.duration`);
  if (raw.infrared !== undefined) state.infrared = checkNumber(raw.infrared, 0, 1, `${where}.infrared`);
  if (raw.power !== undefined) {
    if (raw.power !== 'on' && raw.power !== 'off') throw new Invalid(`${where}.power ${CHECK_TEXT.power}`);
    state.power = raw.power;
  }
  return { state: freezeState(state), picture: parsePicture(raw, where) };
}

/** Keys in the order the API's examples print them (alphabetical inside a state). */
function freezeState(s: SceneState): SceneState {
  const out = {} as Mutable<SceneState>;
  if (s.brightness !== undefined) out.brightness = s.brightness;
  if (s.color !== undefined) out.color = s.color;
  if (s.duration !== undefined) out.duration = s.duration;
  if (s.infrared !== undefined) out.infrared = s.infrared;
  if (s.power !== undefined) out.power = s.power;
  out.selector = s.selector;
  return Object.freeze(out);
}

function checkTimestamp(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new Invalid(`${where} must be a non-negative integer (Unix seconds)`);
  }
  return value;
}

function parseScene(raw: unknown, where: string): Scene {
  if (!isRecord(raw)) throw new Invalid(`${where} must be an object`);
  checkKeys(raw, ['uuid', 'name', 'account', 'states', 'created_at', 'updated_at'], where);
  if (typeof raw.uuid !== 'string' || !UUID_RE.test(raw.uuid)) throw new Invalid(`${where}.uuid must be a UUID`);
  const problem = sceneNameProblem(raw.name);
  if (problem !== null) throw new Invalid(`${where}.name ${problem}`);
  if (!isRecord(raw.account)) throw new Invalid(`${where}.account must be an object`);
  checkKeys(raw.account, ['uuid'], `${where}.account`);
  if (typeof raw.account.uuid !== 'string' || !UUID_RE.test(raw.account.uuid)) {
    throw new Invalid(`${where}.account.uuid must be a UUID`);
  }
  if (!Array.isArray(raw.states)) throw new Invalid(`${where}.states must be an array`);
  const parsed = raw.states.map((s, i) => parseState(s, `${where}.states[${i}]`));
  const states = parsed.map((p) => p.state);
  const scene = makeScene({
    uuid: raw.uuid.toLowerCase(),
    name: (raw.name as string).trim(),
    account: { uuid: raw.account.uuid.toLowerCase() },
    states,
    created_at: checkTimestamp(raw.created_at, `${where}.created_at`),
    updated_at: checkTimestamp(raw.updated_at, `${where}.updated_at`),
  });
  return withPictures(scene, parsed.map((p) => p.picture));
}

export function parseFile(text: string): Map<string, Scene> {
  let doc: unknown;
  try {
    // A byte-order mark (Windows editors write one) is not part of the JSON.
    doc = JSON.parse(text.startsWith('\uFEFF') ? text.slice(1) : text);
  } catch (err) {
    throw new Invalid(`not JSON: ${errorText(err)}`);
  }
  if (!isRecord(doc)) throw new Invalid('the top level must be an object');
  checkKeys(doc, ['version', 'scenes'], 'the top level');
  if (doc.version !== SCENE_FILE_VERSION) {
    throw new Invalid(`version must be ${SCENE_FILE_VERSION}, not ${quoted(doc.version)}`);
  }
  if (!Array.isArray(doc.scenes)) throw new Invalid('scenes must be an array');
  const scenes = new Map<string, Scene>();
  doc.scenes.forEach((raw, i) => {
    const scene = parseScene(raw, `scenes[${i}]`);
    if (scenes.has(scene.uuid)) throw new Invalid(`scenes[${i}].uuid ${scene.uuid} is used twice`);
    scenes.set(scene.uuid, scene);
  });
  return scenes;
}

export function makeScene(s: Scene): Scene {
  return Object.freeze({
    uuid: s.uuid,
    name: s.name,
    account: Object.freeze({ uuid: s.account.uuid }),
    states: Object.freeze([...s.states]),
    created_at: s.created_at,
    updated_at: s.updated_at,
  });
}

/** Binary (code unit) order: the same on every machine, whatever its locale. */
export function compareScenes(a: Scene, b: Scene): number {
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0;
}

export function errorText(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    return code !== undefined && !err.message.startsWith(code) ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

/** One state per light from what the view holds now. Zones, pixels and effects are its picture (scene-picture.ts). */
export function stateOfLight(light: LightView): SceneState {
  const state: Mutable<SceneState> = { selector: `id:${light.serial.toLowerCase()}` };
  if (light.power !== null) state.power = light.power;
  if (light.color !== null) {
    // Readings come from u16 wire values; clamp so that what capture writes always loads again.
    state.brightness = clamp(light.color.brightness, 0, 1);
    state.color = Object.freeze({
      hue: clamp(light.color.hue, 0, 360),
      saturation: clamp(light.color.saturation, 0, 1),
      kelvin: clamp(Math.round(light.color.kelvin), KELVIN_MIN, KELVIN_MAX),
    });
  }
  if (light.capabilities.infrared && light.infrared !== null) state.infrared = clamp(light.infrared, 0, 1);
  return freezeState(state);
}

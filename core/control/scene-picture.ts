// What a scene keeps of a light beyond the API's state (issue 29 §4): a strip's zones, a matrix light's pixels (every
// tile) and the firmware effect it runs, with the settings the device reports (StateMultiZoneEffect, StateTileEffect:
// https://lan.developer.lifx.com/docs/multizone-light-control, https://lan.developer.lifx.com/docs/tile-control),
// enough to start it again. In the scene file they are three optional keys of the light's state (`zones`, `pixels`,
// `effect`; a file written before them loads as it is); in memory they sit beside the Scene (picturesOf), so every
// Scene a face lists keeps the cloud's List Scenes shape. Pure: no I/O.

import { ENUMS, KELVIN_MAX, KELVIN_MIN, msToSeconds, nsToSeconds, type Hsbk, type Payload } from '../protocol/index.js';
import { Invalid, inRange, isRecord, type Mutable, type Scene, type SceneState } from './scene-file.js';
import type { LightView } from './types.js';

/** A firmware effect as a light reported it: its type's name, speed and run time in seconds, raw parameters, palette. */
export interface SceneEffect {
  /** MOVE (strips); MORPH, FLAME, SKY, COLOR_SWEEP (matrix lights). */
  readonly type: string;
  /** One cycle, seconds (the wire's speed). */
  readonly periodS: number;
  /** How long it runs, seconds; 0 is until stopped. */
  readonly durationS: number;
  /** The eight u32 parameters as the device reported them (MOVE's direction, SKY's type and cloud saturation). */
  readonly parameters: readonly number[];
  /** Matrix effects' palette (MORPH), at most 16 colours. */
  readonly palette: readonly Hsbk[];
}

/** One light's picture: zones (zone 0 first), pixels (each tile row by row from the top left), the effect running. */
export interface LightPicture {
  readonly zones?: readonly Hsbk[];
  readonly pixels?: readonly (readonly Hsbk[])[];
  readonly effect?: SceneEffect;
}

/** The picture keys of a state in the scene file. */
export const PICTURE_KEYS = ['zones', 'pixels', 'effect'] as const;

const EFFECT_KEYS = ['type', 'period', 'duration', 'parameters', 'palette'];
const MULTIZONE_EFFECTS: readonly string[] = Object.values(ENUMS.MultiZoneEffectType).filter((n) => n !== 'OFF' && !n.startsWith('RESERVED'));
const TILE_EFFECTS: readonly string[] = Object.values(ENUMS.TileEffectType).filter((n) => n !== 'OFF' && !n.startsWith('RESERVED'));
/** Palette colours in a SetTileEffect. */
const PALETTE_MAX = 16;
const U32_MAX = 0xffffffff;

// ---- the pictures beside each Scene ----

/** Each scene's pictures, by state index (undefined for a state without one). Scenes are frozen and never change. */
const PICTURES = new WeakMap<Scene, readonly (LightPicture | undefined)[]>();

/** The pictures of a scene's states, in the order of its states (undefined where a state has none). */
export function picturesOf(scene: Scene): readonly (LightPicture | undefined)[] {
  return PICTURES.get(scene) ?? [];
}

/** `scene` with `pictures` kept beside it (nothing when there are none). Returns the scene. */
export function withPictures(scene: Scene, pictures: readonly (LightPicture | undefined)[]): Scene {
  if (pictures.some((p) => p !== undefined)) PICTURES.set(scene, Object.freeze([...pictures]));
  return scene;
}

/** A scene as the file keeps it: each state with its picture's keys. */
export function sceneRecord(scene: Scene): unknown {
  const pictures = picturesOf(scene);
  if (pictures.length === 0) return scene;
  return { ...scene, states: scene.states.map((s, i) => recordOfState(s, pictures[i])) };
}

function recordOfState(state: SceneState, picture: LightPicture | undefined): unknown {
  if (picture === undefined) return state;
  const out: Record<string, unknown> = { ...state };
  if (picture.zones !== undefined) out.zones = picture.zones.map(tuple);
  if (picture.pixels !== undefined) out.pixels = picture.pixels.map((tile) => tile.map(tuple));
  if (picture.effect !== undefined) {
    const e = picture.effect;
    out.effect = { type: e.type, period: e.periodS, duration: e.durationS, parameters: e.parameters, ...(e.palette.length > 0 ? { palette: e.palette.map(tuple) } : {}) };
  }
  return out;
}

/** A colour as the file writes it in a picture: `[hue, saturation, brightness, kelvin]`. */
function tuple(c: Hsbk): number[] {
  return [c.hue, c.saturation, c.brightness, c.kelvin];
}

/**
 * The scene file, pretty-printed, with every array of numbers on one line: a picture's colours (a 16 x 8 light has 128)
 * take a line each, not six.
 */
export function formatSceneFile(doc: unknown): string {
  return JSON.stringify(doc, null, 2).replace(/\[\s+(-?[\d.e+-]+(?:,\s+-?[\d.e+-]+)*)\s+\]/g, (_, list: string) => `[${list.split(/,\s+/).join(', ')}]`);
}

// ---- reading a state's picture from the file ----

function parseColor(raw: unknown, where: string): Hsbk {
  if (!Array.isArray(raw) || raw.length !== 4) throw new Invalid(`${where} must be [hue, saturation, brightness, kelvin]`);
  const [hue, saturation, brightness, kelvin] = raw as unknown[];
  if (!inRange(hue, 0, 360) || !inRange(saturation, 0, 1) || !inRange(brightness, 0, 1) || !inRange(kelvin, KELVIN_MIN, KELVIN_MAX) || !Number.isInteger(kelvin)) {
    throw new Invalid(`${where} must be [hue 0-360, saturation 0-1, brightness 0-1, kelvin ${KELVIN_MIN}-${KELVIN_MAX}]`);
  }
  return Object.freeze({ hue, saturation, brightness, kelvin });
}

function parseColors(raw: unknown, where: string, max: number): Hsbk[] {
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > max) throw new Invalid(`${where} must be a list of 1 to ${max} colours`);
  return raw.map((c, i) => parseColor(c, `${where}[${i}]`));
}

function parseEffect(raw: unknown, where: string): SceneEffect {
  if (!isRecord(raw)) throw new Invalid(`${where} must be an object`);
  for (const key of Object.keys(raw)) if (!EFFECT_KEYS.includes(key)) throw new Invalid(`${where} has an unknown key "${key}"`);
  if (typeof raw.type !== 'string' || ![...MULTIZONE_EFFECTS, ...TILE_EFFECTS].includes(raw.type)) {
    throw new Invalid(`${where}.type must be one of ${[...MULTIZONE_EFFECTS, ...TILE_EFFECTS].join(', ')}`);
  }
  if (!inRange(raw.period, 0, U32_MAX / 1000)) throw new Invalid(`${where}.period must be a number of seconds`);
  if (!inRange(raw.duration, 0, Number.MAX_SAFE_INTEGER / 1e9)) throw new Invalid(`${where}.duration must be a number of seconds`);
  const parameters = raw.parameters;
  if (!Array.isArray(parameters) || parameters.length !== 8 || !parameters.every((p) => Number.isInteger(p) && inRange(p, 0, U32_MAX))) {
    throw new Invalid(`${where}.parameters must be 8 integers from 0 to ${U32_MAX}`);
  }
  const palette = raw.palette === undefined ? [] : parseColors(raw.palette, `${where}.palette`, PALETTE_MAX);
  return Object.freeze({ type: raw.type, periodS: raw.period, durationS: raw.duration, parameters: Object.freeze([...(parameters as number[])]), palette: Object.freeze(palette) });
}

/** The picture keys of one state of the file (checked), or undefined when it has none. */
export function parsePicture(raw: Record<string, unknown>, where: string): LightPicture | undefined {
  const out: Mutable<LightPicture> = {};
  if (raw.zones !== undefined) out.zones = Object.freeze(parseColors(raw.zones, `${where}.zones`, 0xffff));
  if (raw.pixels !== undefined) {
    if (!Array.isArray(raw.pixels) || raw.pixels.length === 0 || raw.pixels.length > 16) throw new Invalid(`${where}.pixels must be a list of 1 to 16 tiles`);
    out.pixels = Object.freeze(raw.pixels.map((tile, t) => Object.freeze(parseColors(tile, `${where}.pixels[${t}]`, 0xffff))));
  }
  if (raw.effect !== undefined) out.effect = parseEffect(raw.effect, `${where}.effect`);
  return Object.keys(out).length === 0 ? undefined : Object.freeze(out);
}

// ---- capturing ----

/** What StateMultiZoneEffect and StateTileEffect report (their settings). */
export type EffectSettings = Payload<'StateMultiZoneEffect'>['settings'] | Payload<'StateTileEffect'>['settings'];

/** The effect a light reported, or undefined when none runs (OFF) or its type is one this table cannot start again. */
export function effectOfSettings(settings: EffectSettings, matrix: boolean, fromWire: (c: Payload<'StateTileEffect'>['settings']['palette'][number]) => Hsbk): SceneEffect | undefined {
  const type = (matrix ? ENUMS.TileEffectType : ENUMS.MultiZoneEffectType)[settings.type as 0] as string | undefined;
  if (type === undefined || !(matrix ? TILE_EFFECTS : MULTIZONE_EFFECTS).includes(type)) return undefined;
  const palette = 'palette' in settings ? settings.palette.slice(0, Math.min(settings.paletteCount, PALETTE_MAX)).map(fromWire) : [];
  return Object.freeze({
    type,
    periodS: msToSeconds(settings.speedMs),
    durationS: nsToSeconds(settings.durationNs),
    parameters: Object.freeze([...settings.parameters]),
    palette: Object.freeze(palette.map((c) => Object.freeze({ ...c, kelvin: Math.min(KELVIN_MAX, Math.max(KELVIN_MIN, c.kelvin)) }))),
  });
}

function clampColor(c: Hsbk): Hsbk {
  const within = (v: number, min: number, max: number): number => Math.min(max, Math.max(min, v));
  if (c.hue <= 360 && c.hue >= 0 && c.saturation <= 1 && c.brightness <= 1 && c.kelvin >= KELVIN_MIN && c.kelvin <= KELVIN_MAX && Number.isInteger(c.kelvin)) return c;
  return Object.freeze({ hue: within(c.hue, 0, 360), saturation: within(c.saturation, 0, 1), brightness: within(c.brightness, 0, 1), kelvin: within(Math.round(c.kelvin), KELVIN_MIN, KELVIN_MAX) });
}

/**
 * A light's picture from its view (zones and pixels as last read) and the effect it reported; undefined for a light
 * with neither zones nor pixels nor an effect (a bulb keeps the state the API lists, and nothing else).
 */
export function pictureOfLight(light: LightView, effect: SceneEffect | undefined): LightPicture | undefined {
  const out: Mutable<LightPicture> = {};
  // Readings come from u16 wire values; clamped so that what capture writes always loads again.
  if (light.capabilities.multizone && light.zones !== null && light.zones.length > 0) out.zones = Object.freeze(light.zones.map(clampColor));
  if (light.capabilities.matrix && light.pixels !== null && light.pixels.length > 0) out.pixels = Object.freeze(light.pixels.map((t) => Object.freeze(t.map(clampColor))));
  if (effect !== undefined) out.effect = effect;
  return Object.keys(out).length === 0 ? undefined : Object.freeze(out);
}

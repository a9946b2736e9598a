// Scene activation (Activate Scene): one stored state x the activation's ignore list, overrides and duration ->
// the request for its selector. Pure: no I/O.

import { quoted } from '../errors.js';
import { DEFAULT_DURATION_S, DURATION_MAX_S, type PowerState } from '../protocol/index.js';
import { inRange, isRecord, parameterInvalid, type Mutable, type SceneState } from './scene-file.js';
import type { PartialHsbk } from './types.js';

export const SCENE_IGNORE_KEYS = Object.freeze([
  'power',
  'infrared',
  'duration',
  'intensity',
  'hue',
  'saturation',
  'brightness',
  'kelvin',
] as const);
export type SceneIgnoreKey = (typeof SCENE_IGNORE_KEYS)[number];

/** A Set State hash applied to every state of the scene (Activate Scene's `overrides`), in user units. */
export interface SceneOverrides {
  readonly power?: PowerState;
  /** A colour string; parsed by whoever sends the request. */
  readonly color?: string;
  readonly brightness?: number;
  readonly infrared?: number;
  readonly durationS?: number;
}

export interface SceneActivation {
  /** The activation's `duration` (seconds); overrides the scene's stored durations. */
  readonly durationS?: number;
  /** Properties of the scene to leave unapplied (Activate Scene's `ignore`). */
  readonly ignore?: readonly string[];
  readonly overrides?: SceneOverrides;
}

/**
 * The request for one selector of a scene. `color` is what is left of the stored colour after `ignore`;
 * `colorString` replaces it entirely when the overrides carry a colour (exactly one of the two, or
 * neither). As in Set State, `brightness` overrides any brightness inside the colour.
 */
export interface SceneStateChange {
  readonly selector: string;
  readonly power?: PowerState;
  readonly color?: PartialHsbk;
  readonly colorString?: string;
  readonly brightness?: number;
  readonly infrared?: number;
  readonly durationS: number;
}

function checkActivation(activate: SceneActivation): ReadonlySet<SceneIgnoreKey> {
  if (!isRecord(activate)) throw parameterInvalid('activation', 'must be an object');
  if (activate.durationS !== undefined && !inRange(activate.durationS, 0, DURATION_MAX_S)) {
    throw parameterInvalid('duration', `must be a number from 0 to ${DURATION_MAX_S}`);
  }
  const ignore = new Set<SceneIgnoreKey>();
  if (activate.ignore !== undefined) {
    if (!Array.isArray(activate.ignore)) throw parameterInvalid('ignore', 'must be an array');
    for (const key of activate.ignore) {
      if (!(SCENE_IGNORE_KEYS as readonly unknown[]).includes(key)) {
        throw parameterInvalid('ignore', `${quoted(key)} is not one of ${SCENE_IGNORE_KEYS.join(', ')}`);
      }
      ignore.add(key as SceneIgnoreKey);
    }
  }
  const o = activate.overrides;
  if (o !== undefined) {
    if (!isRecord(o)) throw parameterInvalid('overrides', 'must be an object');
    if (o.power !== undefined && o.power !== 'on' && o.power !== 'off') {
      throw parameterInvalid('overrides.power', 'must be "on" or "off"');
    }
    if (o.color !== undefined && (typeof o.color !== 'string' || o.color.trim() === '')) {
      throw parameterInvalid('overrides.color', 'must be a non-empty colour string');
    }
    if (o.brightness !== undefined && !inRange(o.brightness, 0, 1)) {
      throw parameterInvalid('overrides.brightness', 'must be a number from 0 to 1');
    }
    if (o.infrared !== undefined && !inRange(o.infrared, 0, 1)) {
      throw parameterInvalid('overrides.infrared', 'must be a number from 0 to 1');
    }
    if (o.durationS !== undefined && !inRange(o.durationS, 0, DURATION_MAX_S)) {
      throw parameterInvalid('overrides.duration', `must be a number from 0 to ${DURATION_MAX_S}`);
    }
  }
  return ignore;
}

/**
 * What to send to one selector when activating a scene. Pure. Order of precedence:
 * 1. `ignore` removes the scene's own values: power, infrared, duration, hue, saturation, kelvin,
 *    brightness (`intensity` is the same as `brightness`).
 * 2. `overrides` then replace values property by property and always apply, ignored or not — they are
 *    the caller's explicit request. A colour string replaces hue, saturation and kelvin entirely; the
 *    scene's separate `brightness` stays unless ignored or overridden.
 * 3. durationS = overrides.durationS, else the activation's durationS, else the state's stored
 *    `duration` (unless ignored), else 1 s (Set State's default).
 * Throws PARAMETER_INVALID for an unknown ignore key or an out-of-range value.
 */
export function sceneStateToChange(state: SceneState, activate: SceneActivation = {}): SceneStateChange {
  const ignore = checkActivation(activate);
  const o = activate.overrides ?? {};
  const out: Mutable<SceneStateChange> = { selector: state.selector, durationS: 0 };

  const power = o.power ?? (ignore.has('power') ? undefined : state.power);
  if (power !== undefined) out.power = power;

  if (o.color !== undefined) {
    out.colorString = o.color;
  } else if (state.color !== undefined) {
    const color: Mutable<PartialHsbk> = {};
    if (!ignore.has('hue')) color.hue = state.color.hue;
    if (!ignore.has('saturation')) color.saturation = state.color.saturation;
    if (!ignore.has('kelvin')) color.kelvin = state.color.kelvin;
    if (Object.keys(color).length > 0) out.color = Object.freeze(color);
  }

  const brightnessIgnored = ignore.has('brightness') || ignore.has('intensity');
  const brightness = o.brightness ?? (brightnessIgnored ? undefined : state.brightness);
  if (brightness !== undefined) out.brightness = brightness;

  const infrared = o.infrared ?? (ignore.has('infrared') ? undefined : state.infrared);
  if (infrared !== undefined) out.infrared = infrared;

  out.durationS =
    o.durationS ?? activate.durationS ?? (ignore.has('duration') ? undefined : state.duration) ?? DEFAULT_DURATION_S;
  return Object.freeze(out);
}

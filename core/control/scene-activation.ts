// Scene activation (Activate Scene): one stored state x the activation's ignore list, overrides and duration ->
// the request for its selector. Pure: no I/O.

import { DEFAULT_DURATION_S, DURATION_MAX_S, type PowerState } from '../protocol/index.js';
import type { Mutable, SceneState } from './scene-file.js';
import type { CheckedValues, RequestOf, SetStateRequest } from './requests.js';
import { SCENE_IGNORE_KEYS } from './catalogue.js';
import type { PartialHsbk } from './types.js';

export { SCENE_IGNORE_KEYS };

export type SceneIgnoreKey = (typeof SCENE_IGNORE_KEYS)[number];

/** A Set State hash applied to every state of the scene (Activate Scene's `overrides`), in user units. */
export type SceneOverrides = SetStateRequest;

/** Activate Scene's parameters (`duration`, `ignore`, `overrides`), as the catalogue declares them. */
export type SceneActivation = RequestOf<'activateScene'>;

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

/**
 * What to send to one selector when activating a scene. Pure. Order of precedence:
 * 1. `ignore` removes the scene's own values: power, infrared, duration, hue, saturation, kelvin,
 *    brightness (`intensity` is the same as `brightness`).
 * 2. `overrides` then replace values property by property and always apply, ignored or not — they are
 *    the caller's explicit request. A colour string replaces hue, saturation and kelvin entirely; the
 *    scene's separate `brightness` stays unless ignored or overridden.
 * 3. durationS = overrides.durationS, else the activation's durationS, else the state's stored
 *    `duration` (unless ignored), else 1 s (Set State's default).
 * The activation arrives checked (requests.ts).
 */
export function sceneStateToChange(state: SceneState, activate: CheckedValues<'activateScene'> = {}): SceneStateChange {
  const ignore = new Set<string>(activate.ignore ?? []);
  const o = activate.overrides ?? {};
  const out: Mutable<SceneStateChange> = { selector: state.selector, durationS: 0 };

  const power = o.power ?? (ignore.has('power') ? undefined : state.power);
  if (power !== undefined) out.power = power;

  if (typeof o.color === 'string') {
    out.colorString = o.color;
  } else if (o.color !== undefined) {
    out.color = o.color;
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

// Decisions that need a light's current state before planning: State Delta
// (https://api.developer.lifx.com/docs/state-delta) turns relative changes into an absolute StateChange for
// planSetState, Toggle picks one power for all lights, Cycle picks the next state. Pure functions, user units.

import { LightwireError } from '../errors.js';
import type { Hsbk, PowerState } from '../protocol/index.js';
import { clampKelvin, requestedColor } from './planner.js';
import type { CheckedValues } from './requests.js';
import type { LightView, PartialHsbk, StateChange } from './types.js';

/**
 * A checked State Delta in user units (requests.ts): `power` and `duration` absolute, the rest relative. Hue rotates
 * -360..360 and wraps; saturation, brightness and infrared are added and clipped to 0-1 (the docs leave additive vs
 * absolute open for infrared; we add); kelvin is added and clipped to the product's range (not the docs' fixed
 * 2500-9000).
 */
export type StateDelta = CheckedValues<'stateDelta'> & { readonly durationS: number };

/**
 * The absolute change a delta means for this light. The colour carries only the components the delta moves;
 * planSetState merges them with the current colour. Needs `light.color` when a colour component moves, and
 * `light.infrared` when infrared moves on an infrared light (PARAMETER_INVALID otherwise). Components the
 * product cannot change (hue/saturation on white-only lights, kelvin on fixed-white ones) and infrared on lights
 * without it are left out.
 */
export function applyDelta(light: LightView, delta: StateDelta): StateChange {
  // Checked (requests.ts): hue within -360..360, the other amounts any finite number: the sum is clipped (to 0-1;
  // kelvin to the product's range), so {"brightness": -5} means "all the way down".
  const { power, durationS, hue: dHue, saturation: dSaturation, brightness: dBrightness, infrared: dInfrared, kelvin: dKelvin } = delta;
  const caps = light.capabilities;
  const range = caps.kelvinRange;

  // Only the components this product can change need the current colour (the planner's rules).
  const moveHue = dHue !== undefined && caps.color;
  const moveSaturation = dSaturation !== undefined && caps.color;
  const moveBrightness = dBrightness !== undefined && range !== null;
  const moveKelvin = dKelvin !== undefined && caps.variableColorTemp && range !== null;
  let color: PartialHsbk | undefined;
  if (range !== null && (moveHue || moveSaturation || moveBrightness || moveKelvin)) {
    const now = light.color;
    if (now === null) invalid('color', `of light ${light.serial} is not known; a delta needs the current colour`);
    color = {
      ...(moveHue ? { hue: wrapHue(now.hue + (dHue ?? 0)) } : {}),
      ...(moveSaturation ? { saturation: clip01(now.saturation + (dSaturation ?? 0)) } : {}),
      ...(moveBrightness ? { brightness: clip01(now.brightness + (dBrightness ?? 0)) } : {}),
      ...(moveKelvin ? { kelvin: clampKelvin(now.kelvin + (dKelvin ?? 0), range) } : {}),
    };
  }

  let infrared: number | undefined;
  if (dInfrared !== undefined && caps.infrared) {
    if (light.infrared === null) invalid('infrared', `of light ${light.serial} is not known; a delta needs the current level`);
    infrared = clip01(light.infrared + dInfrared);
  }

  return {
    ...(power === undefined ? {} : { power }),
    ...(color === undefined ? {} : { color }),
    ...(infrared === undefined ? {} : { infrared }),
    durationS,
  };
}

/** Degrees mod 360 into [0, 360): 350 + 20 -> 10, 10 - 20 -> 350. */
export function wrapHue(degrees: number): number {
  const wrapped = ((degrees % 360) + 360) % 360;
  return wrapped === 360 ? 0 : wrapped; // (-1e-15 % 360) + 360 rounds to 360
}

const clip01 = (x: number): number => Math.min(1, Math.max(0, x));

/**
 * Toggle: if any light is on, all go off; otherwise all go on, so every light ends in the same power.
 * Lights whose power is unknown, and unreachable ones (`online` false, whose power is stale), are ignored.
 */
export function toggleTarget(lights: readonly LightView[]): PowerState {
  return lights.some((l) => l.online && l.power === 'on') ? 'off' : 'on';
}

/** The fields of a Cycle state that decide where a light is in the list. */
export interface StateChangeLike {
  readonly power?: PowerState;
  readonly color?: PartialHsbk;
  /** Overrides color.brightness, as in Set State. */
  readonly brightness?: number;
}

/** Cycle's match tolerances (our choice: the API does not document how it finds the current state). */
export const CYCLE_TOLERANCE = Object.freeze({ hueDegrees: 1, fraction: 0.01, kelvin: 50 });

/**
 * Cycle: the index of the state to apply next. The light is "at" the first entry whose specified fields
 * all match its current state (hue within 1 degree around the circle, saturation and brightness within 0.01,
 * kelvin within 50 K, power exactly); the next one is (i + 1) mod n forward, (i - 1) mod n backward. No match:
 * entry 0 forward, n - 1 backward. An entry is compared with what planSetState would have made of it on this
 * light (kelvin clamped to the product's range, hue and saturation ignored on white-only lights), so a light
 * that cannot show an entry exactly still moves on instead of restarting from the beginning forever. An entry
 * with no fields matches any light; colour fields never match a light whose colour is unknown.
 */
export function nextCycleState(states: readonly StateChangeLike[], current: LightView, direction: 'forward' | 'backward'): number {
  if (!Array.isArray(states) || states.length === 0) invalid('states', 'must hold at least one state');
  if (direction !== 'forward' && direction !== 'backward') invalid('direction', `must be "forward" or "backward" (got ${String(direction)})`);
  const n = states.length;
  const at = states.findIndex((s) => matches(s, current));
  if (at === -1) return direction === 'forward' ? 0 : n - 1;
  return direction === 'forward' ? (at + 1) % n : (at - 1 + n) % n;
}

function matches(state: StateChangeLike, light: LightView): boolean {
  if (state.power !== undefined && state.power !== light.power) return false;
  const wanted = requestedColor(state.color, state.brightness, light.capabilities);
  return colorMatches(wanted, light.color);
}

function colorMatches(wanted: PartialHsbk, now: Hsbk | null): boolean {
  const specified = wanted.hue ?? wanted.saturation ?? wanted.brightness ?? wanted.kelvin;
  if (specified === undefined) return true;
  if (now === null) return false;
  const t = CYCLE_TOLERANCE;
  if (wanted.hue !== undefined && hueDistance(wanted.hue, now.hue) > t.hueDegrees + EPSILON) return false;
  if (wanted.saturation !== undefined && Math.abs(wanted.saturation - now.saturation) > t.fraction + EPSILON) return false;
  if (wanted.brightness !== undefined && Math.abs(wanted.brightness - now.brightness) > t.fraction + EPSILON) return false;
  if (wanted.kelvin !== undefined && Math.abs(wanted.kelvin - now.kelvin) > t.kelvin + EPSILON) return false;
  return true;
}

/** Float noise allowance, so a difference of exactly the tolerance (0.51 - 0.5) still matches. */
const EPSILON = 1e-9;

function hueDistance(a: number, b: number): number {
  const d = Math.abs(wrapHue(a) - wrapHue(b));
  return Math.min(d, 360 - d);
}

function invalid(field: string, reason: string): never {
  throw new LightwireError('PARAMETER_INVALID', { field, reason });
}

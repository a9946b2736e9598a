// Firmware effects as Switches: which lights can run each one, how the service starts it, and how the running
// effect the service reports (MOVE, MORPH, FLAME, SKY or OFF) shows on the switch.

import type { Capabilities, LightResult, LightService } from '../core/index.js';
import type { EffectKind } from './config.js';

export type EffectStarter = Pick<LightService, 'move' | 'morph' | 'flame' | 'clouds' | 'sunrise' | 'sunset' | 'effectsOff'>;

export interface EffectSpec {
  readonly kind: EffectKind;
  /** Shown after the light's name. */
  readonly title: string;
  /** The capability the service requires for it. */
  readonly needs: keyof Capabilities;
  /** What the service reports while it runs. */
  readonly firmware: 'MOVE' | 'MORPH' | 'FLAME' | 'SKY';
  readonly start: (service: EffectStarter, selector: string) => Promise<LightResult[]>;
}

export const EFFECTS: Readonly<Record<EffectKind, EffectSpec>> = Object.freeze({
  move: { kind: 'move', title: 'Move', needs: 'multizone', firmware: 'MOVE', start: (s, sel) => s.move(sel, { powerOn: true }) },
  morph: { kind: 'morph', title: 'Morph', needs: 'matrix', firmware: 'MORPH', start: (s, sel) => s.morph(sel, { powerOn: true }) },
  flame: { kind: 'flame', title: 'Flame', needs: 'matrix', firmware: 'FLAME', start: (s, sel) => s.flame(sel, { powerOn: true }) },
  clouds: { kind: 'clouds', title: 'Clouds', needs: 'matrix', firmware: 'SKY', start: (s, sel) => s.clouds(sel, { powerOn: true }) },
  sunrise: { kind: 'sunrise', title: 'Sunrise', needs: 'matrix', firmware: 'SKY', start: (s, sel) => s.sunrise(sel, { powerOn: true }) },
  sunset: { kind: 'sunset', title: 'Sunset', needs: 'matrix', firmware: 'SKY', start: (s, sel) => s.sunset(sel, { powerOn: true }) },
});

/** The effects of a list that a light can run, in the list's order. */
export function effectsFor(kinds: readonly EffectKind[], caps: Capabilities): EffectSpec[] {
  return kinds.map((k) => EFFECTS[k]).filter((e) => caps[e.needs] === true);
}

/**
 * Whether an effect's switch shows On. The three sky effects all report SKY, so the one started last from here
 * is the one that shows On (`lastSky`).
 */
export function effectIsOn(spec: EffectSpec, running: string, lastSky: EffectKind | undefined): boolean {
  if (running !== spec.firmware) return false;
  return spec.firmware !== 'SKY' || lastSky === undefined || lastSky === spec.kind;
}

// Firmware effects as Switches: which lights can run each one, how the service starts it, and how the running
// effect the service reports (MOVE, MORPH, FLAME, SKY or OFF) shows on the switch. All of it is the service's
// operation catalogue (title, the capability needed, what the light reports while it runs). Themes (the catalogue's
// Paint Theme, one switch per theme chosen) are momentary: a light does not report a theme, so the switch turns on,
// paints, and falls back to Off.

import { FIRMWARE_EFFECT_MIN_MAJOR, OPERATIONS, THEME_NAMES, type Capabilities, type LightResult, type LightService, type Need } from '../core/index.js';
import { EFFECT_KINDS, type EffectKind } from './config.js';

export type EffectStarter = Pick<LightService, 'perform' | 'check'>;

export interface EffectSpec {
  readonly kind: EffectKind;
  /** Shown after the light's name. */
  readonly title: string;
  /** The capability the service requires for it. */
  readonly needs: Need;
  /** What the service reports while it runs. */
  readonly firmware: 'MOVE' | 'MORPH' | 'FLAME' | 'SKY';
  readonly start: (service: EffectStarter, selector: string) => Promise<LightResult[]>;
}

function spec(kind: EffectKind): EffectSpec {
  const operation = OPERATIONS[kind];
  return Object.freeze({
    kind,
    title: operation.effect.title,
    needs: operation.needs,
    firmware: operation.firmware,
    start: (service: EffectStarter, selector: string) => service.perform(kind, selector, service.check(kind, { powerOn: true })),
  });
}

export const EFFECTS: Readonly<Record<EffectKind, EffectSpec>> = Object.freeze(
  Object.fromEntries(EFFECT_KINDS.map((kind) => [kind, spec(kind)])) as Record<EffectKind, EffectSpec>,
);

/**
 * The effects of a list that a light can run, in the list's order: the capability, and the firmware some need (the
 * sky effects: 4 or later). A firmware not known yet (a restored accessory before its light is read) keeps them, so
 * a switch HomeKit automations use is not removed and added back on every start.
 */
export function effectsFor(kinds: readonly EffectKind[], caps: Capabilities, firmwareMajor?: number): EffectSpec[] {
  return kinds
    .map((k) => EFFECTS[k])
    .filter((e) => {
      const min = FIRMWARE_EFFECT_MIN_MAJOR[e.firmware];
      return caps[e.needs] === true && (min === undefined || firmwareMajor === undefined || firmwareMajor >= min);
    });
}

/**
 * Whether an effect's switch shows On. The three sky effects all report SKY, so the one started last from here
 * is the one that shows On (`lastSky`).
 */
export function effectIsOn(spec: EffectSpec, running: string, lastSky: EffectKind | undefined): boolean {
  if (running !== spec.firmware) return false;
  return spec.firmware !== 'SKY' || lastSky === undefined || lastSky === spec.kind;
}

/** How long a theme switch shows On after its theme was painted. */
export const THEME_SWITCH_RESET_MS = 1000;

export interface ThemeSpec {
  readonly theme: string;
  /** Shown after the light's name: "Theme Autumn". */
  readonly title: string;
  readonly start: (service: EffectStarter, selector: string) => Promise<LightResult[]>;
}

/** The theme switches of a list (names the catalogue knows), in the list's order; every light can show a theme. */
export function themesFor(names: readonly string[]): ThemeSpec[] {
  return names
    .filter((n) => THEME_NAMES.includes(n))
    .map((theme) =>
      Object.freeze({
        theme,
        title: `${OPERATIONS.theme.summary.replace(/^Paint /, '')} ${theme.split('_').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(' ')}`,
        start: (service: EffectStarter, selector: string) => service.perform('theme', selector, service.check('theme', { theme, powerOn: true })),
      }),
    );
}

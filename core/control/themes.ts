// Paint Theme: a named palette (theme-palettes.ts, the themes Home Assistant's lifx.paint_theme and the LIFX app
// offer) spread over what the selector names, so neighbours differ: across the zones of a strip and the pixels of a
// matrix light as a gradient through the palette's colours, and across the lights of a group, each light starting one
// colour further along the palette than the one before it (a bulb shows that one colour). Pure: no I/O, no clock.
//
// Strips get every zone at once (https://lan.developer.lifx.com/docs/multizone-light-control): SetExtendedColorZones
// where the product has it (82 zones a message, APPLY on the last), SetColorZones runs otherwise; matrix lights get a
// whole frame (paint.ts: Set64, and CopyFrameBuffer past 64 pixels).

import { ENUMS, hsbkToWire, sameHsbk, type Hsbk, type WireHsbk } from '../protocol/index.js';
import type { PlanFor } from './executor.js';
import { canvasOf, framePlan } from './paint.js';
import { colorChangeMessage, durationToWire, enumValue, message, plan, requestedColor, resolveColor, setLightPower, ZONES_PER_EXTENDED_MESSAGE } from './planner.js';
import type { CheckedValues } from './requests.js';
import { THEME_PALETTES } from './theme-palettes.js';
import type { LightView, Plan, PlannedMessage, ResolvedLight } from './types.js';

const NO_APPLY = enumValue(ENUMS.MultiZoneApplicationRequest, 'NO_APPLY');
const APPLY = enumValue(ENUMS.MultiZoneApplicationRequest, 'APPLY');
/** SetColorZones carries u8 zone indices. */
const MAX_LEGACY_ZONE_INDEX = 0xff;

/** A theme's palette as colours (the name as the catalogue's parser leaves it: lowercase, words joined by `_`). */
export function themePalette(name: string): readonly Hsbk[] {
  const entries = THEME_PALETTES[name];
  if (entries === undefined) return [];
  return entries.map(([hue, saturation, brightness, kelvin]) => Object.freeze({ hue, saturation, brightness, kelvin }));
}

/** Every theme, by name, with its palette (List Themes, `lightwire themes`, the dashboard). */
export function themeList(): { readonly name: string; readonly palette: readonly Hsbk[] }[] {
  return Object.keys(THEME_PALETTES).map((name) => ({ name, palette: themePalette(name) }));
}

/** The colour at `position` along a palette (0 = its first colour, 1 = its second ...), blended between neighbours and wrapping. */
export function paletteAt(palette: readonly Hsbk[], position: number): Hsbk {
  const n = palette.length;
  const p = ((position % n) + n) % n;
  const i = Math.floor(p);
  const f = p - i;
  const a = palette[i]!;
  const b = palette[(i + 1) % n]!;
  if (f === 0 || sameHsbk(a, b)) return a;
  // Hue the short way round the circle.
  const dh = ((b.hue - a.hue + 540) % 360) - 180;
  return {
    hue: (a.hue + dh * f + 360) % 360,
    saturation: a.saturation + (b.saturation - a.saturation) * f,
    brightness: a.brightness + (b.brightness - a.brightness) * f,
    kelvin: Math.round(a.kelvin + (b.kelvin - a.kelvin) * f),
  };
}

/** Whether a light must be read before its theme is planned: a strip whose zones, or a matrix whose chain, is not known. */
export function themeNeedsRead(light: LightView): boolean {
  const caps = light.capabilities;
  return (caps.multizone && light.zones === null) || (caps.matrix && light.matrix === null);
}

/** The per-light planner of one Paint Theme over `targets` (their order gives each light its place along the palette). */
export function planTheme(request: CheckedValues<'theme'>, targets: readonly ResolvedLight[], defaultDurationS: number): PlanFor {
  const palette = themePalette(request.theme);
  const place = new Map(targets.map((t, i) => [t.light.serial, i]));
  const durationS = request.durationS ?? defaultDurationS;
  return (light) => themeFor(palette, place.get(light.serial) ?? 0, light, durationS, request.powerOn);
}

function themeFor(palette: readonly Hsbk[], place: number, light: LightView, durationS: number, powerOn: boolean): Plan {
  const caps = light.capabilities;
  if (palette.length === 0 || caps.kelvinRange === null) return plan([]);
  const shown = (c: Hsbk): Hsbk => resolveColor(requestedColor(c, undefined, caps), null, caps) ?? c;
  const tiles = light.matrix?.tiles ?? [];
  if (caps.matrix && tiles.length > 0) {
    const canvas = canvasOf(tiles);
    const frames = canvas.tiles.map((tile) => {
      const out = new Array<Hsbk>(tile.width * tile.height);
      for (let row = 0; row < tile.height; row++) {
        for (let col = 0; col < tile.width; col++) {
          // A diagonal through the whole palette, top left to bottom right.
          const along = ((tile.left + col) / Math.max(1, canvas.width - 1) + row / Math.max(1, canvas.height - 1)) / 2;
          out[row * tile.width + col] = shown(paletteAt(palette, place + along * (palette.length - 1)));
        }
      }
      return out;
    });
    return framePlan(frames, canvas, light, durationS, powerOn);
  }
  const wake = powerOn && light.power !== 'on';
  const dark = wake && light.power === 'off';
  const ms = durationToWire(durationS);
  const paintMs = dark ? 0 : ms;
  const power = wake ? [setLightPower('on', dark ? ms : 0)] : [];
  const count = light.zones?.length ?? 0;
  if (caps.multizone && count > 1) {
    const zones = Array.from({ length: count }, (_, i) => hsbkToWire(shown(paletteAt(palette, place + (i / (count - 1)) * (palette.length - 1)))));
    return plan([zoneMessages(zones, caps.extendedMultizone, paintMs), power]);
  }
  return plan([[colorChangeMessage(shown(palette[place % palette.length]!), null, caps, paintMs)], power]);
}

/** Every zone of a strip in one go: SetExtendedColorZones (82 a message, APPLY on the last), or SetColorZones runs. */
export function zoneMessages(zones: readonly WireHsbk[], extended: boolean, durationMs: number): PlannedMessage[] {
  const out: PlannedMessage[] = [];
  if (extended) {
    for (let index = 0; index < zones.length; index += ZONES_PER_EXTENDED_MESSAGE) {
      const colors = zones.slice(index, index + ZONES_PER_EXTENDED_MESSAGE);
      const last = index + ZONES_PER_EXTENDED_MESSAGE >= zones.length;
      out.push(message('SetExtendedColorZones', { durationMs, apply: last ? APPLY : NO_APPLY, index, colorsCount: colors.length, colors }));
    }
    return out;
  }
  const runs: { start: number; end: number; color: WireHsbk }[] = [];
  zones.slice(0, MAX_LEGACY_ZONE_INDEX + 1).forEach((color, i) => {
    const previous = runs.at(-1);
    if (previous !== undefined && sameHsbk(previous.color, color)) previous.end = i;
    else runs.push({ start: i, end: i, color });
  });
  return runs.map((r, i) => message('SetColorZones', { startIndex: r.start, endIndex: r.end, color: r.color, durationMs, apply: i === runs.length - 1 ? APPLY : NO_APPLY }));
}

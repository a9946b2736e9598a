// Activating a scene state that has a picture (scene-picture.ts): the strip's zones and the matrix light's pixels come
// back in as few messages as the protocol allows, and the firmware effect it ran starts again.
// - zones: SetExtendedColorZones, 82 zones a message, APPLY on the last (SetColorZones runs on older firmware):
//   themes.ts zoneMessages, https://lan.developer.lifx.com/docs/multizone-light-control;
// - pixels: one Set64 per tile of at most 64 pixels, else bands into the back frame buffer and one CopyFrameBuffer:
//   paint.ts frameMessages, https://lan.developer.lifx.com/docs/tile-control;
// - a picture in one colour (a strip or matrix light showing one colour when captured): one SetColor, as before;
// - a state without an effect stops whatever effect the light runs first (it would paint over the picture); a state
//   with one starts it once the picture is acknowledged (a MOVE moves the zones it finds).
// All over the activation's duration; power and infrared as for a flat light (a light that is off is painted while
// dark, then powered on over the duration, as Set State does).
//
// The activation's `ignore` and `overrides` on a picture:
// - hue, saturation, kelvin, brightness (intensity) ignored: every zone and pixel keeps that component of what it shows
//   (read first; where that is not known, fast mode without a read, the captured value);
// - overrides' brightness: the picture dimmed or brightened as a whole, its brightest zone or pixel at the override and
//   every other in proportion (dark ones stay dark); a flat light, one colour, gets the override itself, as before;
// - overrides' colour: the light takes that colour as a flat light does (Set State): no picture, no effect;
// - power, infrared and duration: as for a flat light.
// A light whose zone count or tiles no longer match the picture is restored flat (the state's colour), effect and all.

import { randomNonZeroUint32 } from '../builtins.js';
import { ENUMS, fractionToWire, hsbkToWire, sameHsbk, secondsToMs, secondsToNs, type Hsbk } from '../protocol/index.js';
import type { PlanFor } from './executor.js';
import { canvasOf, frameMessages } from './paint.js';
import { durationToWire, enumValue, message, plan, planSetState, requestedColor, resolveColor, setLightPower } from './planner.js';
import type { CheckedChange, CheckedValues } from './requests.js';
import type { SceneStateChange } from './scene-activation.js';
import type { LightPicture, SceneEffect } from './scene-picture.js';
import { zoneMessages } from './themes.js';
import type { LightResult, LightView, Plan, PlannedMessage, ResolvedLight } from './types.js';
import type { WriteContext } from './writes.js';

type Component = 'hue' | 'saturation' | 'brightness' | 'kelvin';

/** One pictured state of an activation, ready to plan. */
export interface PictureJob {
  readonly picture: LightPicture;
  readonly change: SceneStateChange;
  /** Components every zone and pixel keeps from what it shows (the activation's `ignore`). */
  readonly keep: ReadonlySet<Component>;
  /** The overrides' brightness, when given: the picture as a whole. */
  readonly brightness: number | undefined;
  /** The restarted effect's instance id: the firmware tells runs apart by it. */
  readonly instanceId: number;
}

/** The job for a state's picture, or undefined when the state is restored flat (no picture, or an override colour). */
export function pictureJob(picture: LightPicture | undefined, change: SceneStateChange, activation: CheckedValues<'activateScene'>): PictureJob | undefined {
  if (picture === undefined || activation.overrides?.color !== undefined) return undefined;
  const ignore = new Set<string>(activation.ignore ?? []);
  const keep = new Set<Component>((['hue', 'saturation', 'kelvin', 'brightness'] as const).filter((c) => ignore.has(c)));
  if (ignore.has('intensity')) keep.add('brightness');
  const brightness = activation.overrides?.brightness;
  if (brightness !== undefined) keep.delete('brightness');
  return { picture, change, keep, brightness, instanceId: randomNonZeroUint32() };
}

const MZ_OFF = enumValue(ENUMS.MultiZoneEffectType, 'OFF');
const TILE_OFF = enumValue(ENUMS.TileEffectType, 'OFF');
const ZEROS = Object.freeze([0, 0, 0, 0, 0, 0, 0, 0]);

/** Whether the picture's zones fit the light (a zone count not read yet is taken on trust). */
function zonesFit(light: LightView, zones: readonly Hsbk[] | undefined): zones is readonly Hsbk[] {
  return zones !== undefined && light.capabilities.multizone && (light.zones === null || light.zones.length === zones.length);
}

function pixelsFit(light: LightView, pixels: readonly (readonly Hsbk[])[] | undefined): pixels is readonly (readonly Hsbk[])[] {
  const tiles = light.matrix?.tiles;
  return pixels !== undefined && light.capabilities.matrix && tiles !== undefined && tiles.length === pixels.length && tiles.every((t, i) => t.width * t.height === pixels[i]!.length);
}

/** Whether the light must be read before it is planned: a picture of zones or pixels whose geometry is not known. */
function sizeUnknown(job: PictureJob, light: LightView): boolean {
  return (job.picture.zones !== undefined && light.capabilities.multizone && light.zones === null) || (job.picture.pixels !== undefined && light.capabilities.matrix && light.matrix === null);
}

/** The brightest zone or pixel of a picture. */
function brightest(picture: LightPicture): number {
  let max = 0;
  for (const c of picture.zones ?? []) max = Math.max(max, c.brightness);
  for (const tile of picture.pixels ?? []) for (const c of tile) max = Math.max(max, c.brightness);
  return max;
}

/** Each captured colour as it is sent: the ignored components kept from what is shown, the brightness override applied. */
function colorsOf(job: PictureJob, light: LightView, captured: readonly Hsbk[], shown: readonly Hsbk[] | null | undefined, max: number): Hsbk[] {
  const caps = light.capabilities;
  const { keep, brightness } = job;
  const scale = brightness === undefined ? 1 : max > 0 ? brightness / max : 0;
  return captured.map((c, i) => {
    const now = shown?.[i] ?? light.color ?? undefined;
    const pick = (k: Component): number => (keep.has(k) && now !== undefined ? now[k] : c[k]);
    const wanted = {
      hue: pick('hue'),
      saturation: pick('saturation'),
      kelvin: pick('kelvin'),
      brightness: brightness === undefined ? pick('brightness') : max > 0 ? Math.min(1, c.brightness * scale) : brightness,
    };
    return resolveColor(requestedColor(wanted, undefined, caps), now ?? null, caps) ?? c;
  });
}

/** The colour every one of `colors` has, or undefined when they differ. */
function oneColor(colors: readonly Hsbk[]): Hsbk | undefined {
  const first = colors[0];
  return first !== undefined && colors.every((c) => sameHsbk(c, first)) ? first : undefined;
}

/** The message that starts a captured effect again, or undefined when the light cannot run it. */
function effectStart(effect: SceneEffect, light: LightView, instanceid: number): PlannedMessage | undefined {
  const common = { instanceid, speedMs: secondsToMs(effect.periodS), durationNs: secondsToNs(effect.durationS), parameters: [...effect.parameters] };
  const mz = Object.values(ENUMS.MultiZoneEffectType) as string[];
  if (light.capabilities.multizone && mz.includes(effect.type)) {
    return message('SetMultiZoneEffect', { settings: { ...common, type: enumValue(ENUMS.MultiZoneEffectType, effect.type as 'MOVE') } });
  }
  const tile = Object.values(ENUMS.TileEffectType) as string[];
  if (light.capabilities.matrix && light.capabilities.kelvinRange !== null && tile.includes(effect.type)) {
    const palette = effect.palette.map(hsbkToWire);
    return message('SetTileEffect', { settings: { ...common, type: enumValue(ENUMS.TileEffectType, effect.type as 'MORPH'), paletteCount: palette.length, palette } });
  }
  return undefined;
}

/** Stops the firmware effect a strip or matrix light runs (SetMultiZoneEffect / SetTileEffect OFF). */
function effectStop(light: LightView): PlannedMessage[] {
  const out: PlannedMessage[] = [];
  if (light.capabilities.multizone) out.push(message('SetMultiZoneEffect', { settings: { instanceid: 0, type: MZ_OFF, speedMs: 0, durationNs: 0n, parameters: [...ZEROS] } }));
  if (light.capabilities.matrix) {
    out.push(message('SetTileEffect', { settings: { instanceid: 0, type: TILE_OFF, speedMs: 0, durationNs: 0n, parameters: [...ZEROS], paletteCount: 0, palette: [] } }));
  }
  return out;
}

/**
 * The plan of one pictured state for one light. `flat` is the state as Set State plans it, for a light the picture
 * does not fit. Pure but for the job's instance id.
 */
export function planPicture(job: PictureJob, flat: CheckedChange, light: LightView, fast: boolean): Plan {
  const { picture, change } = job;
  const caps = light.capabilities;
  if (caps.kelvinRange === null) return plan([]);
  const start = picture.effect === undefined ? undefined : effectStart(picture.effect, light, job.instanceId);
  const zones = zonesFit(light, picture.zones) ? picture.zones : undefined;
  const pixels = pixelsFit(light, picture.pixels) ? picture.pixels : undefined;
  if (zones === undefined && pixels === undefined) {
    const flatPlan = planSetState(flat, light, { fast, zones: null });
    return plan([...flatPlan.steps, start === undefined ? [] : [start]]);
  }
  const durationMs = durationToWire(change.durationS);
  // A light known to be off is painted while dark, then powered on over the duration (the old picture never shows).
  const dark = change.power === 'on' && light.power === 'off';
  const paintMs = dark ? 0 : durationMs;
  const max = job.brightness === undefined ? 0 : brightest(picture);
  const draw: PlannedMessage[] = picture.effect === undefined ? effectStop(light) : [];
  let show: PlannedMessage[] = [];
  const zoneColors = zones === undefined ? undefined : colorsOf(job, light, zones, light.zones, max);
  const frames = pixels === undefined ? undefined : pixels.map((tile, t) => colorsOf(job, light, tile, light.pixels?.[t], max));
  const one = oneColor([...(zoneColors ?? []), ...(frames ?? []).flat()]);
  // A picture in one colour is one SetColor, which sets every zone and pixel
  // (https://lan.developer.lifx.com/docs/changing-a-device): as a flat light is restored.
  if (one !== undefined) draw.push(message('SetColor', { color: hsbkToWire(one), durationMs: paintMs }));
  else if (zoneColors !== undefined) draw.push(...zoneMessages(zoneColors.map(hsbkToWire), caps.extendedMultizone, paintMs));
  if (one === undefined && frames !== undefined) {
    const messages = frameMessages(frames, canvasOf(light.matrix!.tiles), paintMs);
    draw.push(...messages.draw);
    show = messages.show;
  }
  const infrared = change.infrared !== undefined && caps.infrared ? [message('SetInfrared', { brightness: fractionToWire(change.infrared) })] : [];
  const power = change.power === undefined ? [] : [setLightPower(change.power, durationMs)];
  const effect = start === undefined ? [] : [start];
  if (fast) return plan([[...draw, ...show, ...infrared, ...power, ...effect]]);
  // Power off, or on while not known to be off: with the picture's last step, over the same duration.
  if (!dark) return show.length > 0 ? plan([[...draw, ...infrared], [...show, ...power], effect]) : plan([[...draw, ...infrared, ...power], effect]);
  return plan([[...draw, ...infrared], show, power, effect]);
}

/**
 * Runs one pictured state on the lights its selector names. A light whose geometry is not known yet is read first;
 * so is every light when components are kept from what it shows (`ignore`).
 */
export async function restorePicture(context: WriteContext, targets: readonly ResolvedLight[], job: PictureJob, flat: CheckedChange, fast: boolean): Promise<LightResult[]> {
  let lights = targets;
  if (fast) {
    lights = await Promise.all(targets.map(async (t) => (t.light.online && sizeUnknown(job, t.light) ? { ...t, light: (await context.reread(t.light.serial)) ?? t.light } : t)));
  }
  const planFor: PlanFor = (light) => planPicture(job, flat, light, fast);
  const zonesOf = (light: LightView): boolean => job.keep.size > 0 || sizeUnknown(job, light);
  return context.executor.run(lights, planFor, { fast, deadlineMs: context.deadlineMs, read: 'none', zonesOf });
}

// Set State on one part of a light (parts.ts): the part's zones change, every other zone keeps what it shows
// (read-modify-write of a strip's zones, https://lan.developer.lifx.com/docs/multizone-light-control, or of a matrix
// light's pixels, https://lan.developer.lifx.com/docs/tile-control), and the light's power stays consistent with its
// parts: the fixture is on while any part is lit.
// * `power: off` while another part is lit: the part goes dark (its zones at brightness 0, hue and kelvin kept) and
//   the light stays on. While no other part is lit: the light powers off (its zones keep their colours).
// * `power: on` while the light is on: the part's colour; a dark part with no brightness asked comes back at the
//   brightness it had when a part write last turned it off here (else full). While the light is off: the other parts
//   are made dark first (at once, while the light is still off), then the light powers on over the duration, so only
//   the part asked for lights up.
// * No power: the part's colour only (a dark part stays dark unless a brightness is given).
// Pure but for `memory`, the brightness each part had when it was turned off (the service's, by serial and part).

import { ENUMS, fractionToWire, hsbkToWire, sameHsbk, type Hsbk, type WireHsbk } from '../protocol/index.js';
import { canvasOf, frameMessages } from './paint.js';
import { indicesOf, zoneCount, zonesShown } from './parts.js';
import { durationToWire, enumValue, hasComponent, message, plan, requestedColor, resolveColor, setLightPower, ZONES_PER_EXTENDED_MESSAGE } from './planner.js';
import type { CheckedChange } from './requests.js';
import type { LightView, PartDef, Plan, PlannedMessage } from './types.js';

/** The brightness of each part when a write turned it off, by `serial|part`. */
export type PartMemory = Map<string, number>;

const NO_APPLY = enumValue(ENUMS.MultiZoneApplicationRequest, 'NO_APPLY');
const APPLY = enumValue(ENUMS.MultiZoneApplicationRequest, 'APPLY');
/** SetColorZones carries u8 zone indices. */
const MAX_LEGACY_ZONE_INDEX = 0xff;
/** What a zone is taken to show when its colour was never read (fast mode, a failed read): off, as paint.ts does. */
const UNKNOWN_ZONE: Hsbk = Object.freeze({ hue: 0, saturation: 0, brightness: 0, kelvin: 3500 });
const EMPTY: Plan = Object.freeze({ steps: Object.freeze([]) });

const dark = (c: Hsbk): Hsbk => (c.brightness === 0 ? c : { ...c, brightness: 0 });

export function planPart(change: CheckedChange, light: LightView, part: PartDef, fast: boolean, memory: PartMemory): Plan {
  const caps = light.capabilities;
  const count = zoneCount(light);
  if (caps.kelvinRange === null || count === null || count === 0) return EMPTY;
  const shown = zonesShown(light);
  const before: readonly Hsbk[] = shown !== null && shown.length === count ? shown : new Array<Hsbk>(count).fill(light.color ?? UNKNOWN_ZONE);
  const inPart = new Array<boolean>(count).fill(false);
  const indices = indicesOf(part.zonesOf(count), count);
  for (const i of indices) inPart[i] = true;
  const key = `${light.serial.toLowerCase()}|${part.name}`;
  const othersLit = before.some((c, i) => !inPart[i] && c.brightness > 0);
  const partBrightness = Math.max(0, ...indices.map((i) => before[i]!.brightness));

  const wanted = requestedColor(change.color, change.brightness, caps);
  const target = before.map((c, i) => (inPart[i] ? (resolveColor(wanted, c, caps) ?? c) : c));
  const durationMs = durationToWire(change.durationS);
  const infrared = change.infrared !== undefined && caps.infrared ? [message('SetInfrared', { brightness: fractionToWire(change.infrared) })] : [];
  const lightOn = light.power === 'on';

  if (change.power === 'off') {
    if (partBrightness > 0) memory.set(key, partBrightness);
    if (lightOn && othersLit) {
      for (const i of indices) target[i] = dark(target[i]!);
      return steps(zoneMessages(light, before, target, inPart, durationMs, fast), infrared);
    }
    // The last lit part: the light powers off, its zones as they are (a colour given still goes to the part's).
    const { draw, show } = hasComponent(wanted) ? zoneMessages(light, before, target, inPart, durationMs, fast) : { draw: [], show: [] };
    return plan([draw, [...show, ...infrared, setLightPower('off', durationMs)]]);
  }
  if (change.power === 'on') {
    if (wanted.brightness === undefined && indices.every((i) => target[i]!.brightness === 0)) {
      const restored = memory.get(key) ?? 1;
      for (const i of indices) target[i] = { ...target[i]!, brightness: restored };
    }
    if (lightOn) return steps(zoneMessages(light, before, target, inPart, durationMs, fast), infrared);
    // Off (or not known): the other parts go dark at once while the light is off, then it powers on over the duration.
    for (let i = 0; i < count; i++) if (!inPart[i]) target[i] = dark(target[i]!);
    const all = new Array<boolean>(count).fill(true);
    const { draw, show } = zoneMessages(light, before, target, all, 0, fast);
    return plan([draw, [...show, ...infrared], [setLightPower('on', durationMs)]]);
  }
  return steps(zoneMessages(light, before, target, inPart, durationMs, fast), infrared);
}

function steps(messages: { draw: PlannedMessage[]; show: PlannedMessage[] }, infrared: PlannedMessage[]): Plan {
  return plan([messages.draw, [...messages.show, ...infrared]]);
}

/**
 * The messages that make the light show `target`: a matrix light's touched tiles whole (Set64, CopyFrameBuffer past 64
 * pixels: paint.ts); a strip's whole zone array (SetExtendedColorZones, confirmed mode), else SetColorZones for each
 * run of like zones among those `send` names or that change (so fast mode, planning from a cache, touches no other).
 */
function zoneMessages(light: LightView, before: readonly Hsbk[], target: readonly Hsbk[], send: readonly boolean[], durationMs: number, fast: boolean): { draw: PlannedMessage[]; show: PlannedMessage[] } {
  const changed = (i: number): boolean => send[i] === true || !sameHsbk(before[i]!, target[i]!);
  if (light.capabilities.matrix) {
    const canvas = canvasOf(light.matrix?.tiles ?? []);
    let offset = 0;
    const frames = canvas.tiles.map((tile) => {
      const size = tile.width * tile.height;
      const start = offset;
      offset += size;
      let touched = false;
      for (let i = start; i < start + size; i++) if (changed(i)) touched = true;
      return touched ? target.slice(start, start + size) : null;
    });
    return frameMessages(frames, canvas, durationMs);
  }
  const wire = target.map(hsbkToWire);
  if (light.capabilities.extendedMultizone && !fast) {
    const out: PlannedMessage[] = [];
    for (let index = 0; index < wire.length; index += ZONES_PER_EXTENDED_MESSAGE) {
      const colors = wire.slice(index, index + ZONES_PER_EXTENDED_MESSAGE);
      out.push(message('SetExtendedColorZones', { durationMs, apply: index + ZONES_PER_EXTENDED_MESSAGE >= wire.length ? APPLY : NO_APPLY, index, colorsCount: colors.length, colors }));
    }
    return { draw: out, show: [] };
  }
  const runs: { start: number; end: number; color: WireHsbk }[] = [];
  for (let i = 0; i < Math.min(wire.length, MAX_LEGACY_ZONE_INDEX + 1); i++) {
    if (!changed(i)) continue;
    const last = runs.at(-1);
    if (last !== undefined && last.end === i - 1 && sameHsbk(last.color, wire[i]!)) last.end = i;
    else runs.push({ start: i, end: i, color: wire[i]! });
  }
  const draw = runs.map((r, i) => message('SetColorZones', { startIndex: r.start, endIndex: r.end, color: r.color, durationMs, apply: i === runs.length - 1 ? APPLY : NO_APPLY }));
  return { draw, show: [] };
}


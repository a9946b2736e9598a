// What a plan makes a light show (the targets of its transitions, not where a fade is now), so the registry stays
// current without waiting for a refresh: the executor records it when a write is acknowledged (or, fast, sent).

import type { FactValues, TileFact, WrittenFact } from '../discovery/registry.js';
import { ENUMS, enumName, fractionFromWire, hsbkFromWire, powerFromWire, sameHsbk, waveformReturns, type Hsbk } from '../protocol/index.js';
import { PixelPrediction } from './paint.js';
import type { Plan } from './types.js';

/** The firmware effect's name as List Lights shows it (`OFF`, `MOVE`, `MORPH`, `FLAME`, `SKY`; a number we cannot name). */
export function effectName(names: Readonly<Record<number, string>>, type: number): string {
  return enumName(names, type);
}

/** What a plan leaves a light showing, and how long each part of it takes to get there. */
export interface Prediction {
  readonly facts: FactValues;
  /** Per fact, ms from the send until its transition ends (0 or missing: at once). */
  readonly settleMs: Partial<Record<WrittenFact, number>>;
}

/** What a light showed before a plan, as far as the service knows: a matrix light's chain and pixels too. */
export interface PredictFrom {
  readonly color: Hsbk | null;
  readonly zones: readonly Hsbk[] | null;
  /** A matrix light's tiles (their sizes). */
  readonly tiles?: readonly TileFact[] | null;
  readonly pixels?: readonly (readonly Hsbk[])[] | null;
}

/** Longest a prediction is held against reads: the u32 ms fields hold 49.7 days. */
const MAX_SETTLE_MS = 0xffffffff;

function waveformMs(periodMs: number, cycles: number): number {
  const ms = periodMs * cycles;
  return Number.isFinite(ms) ? Math.min(MAX_SETTLE_MS, Math.max(0, Math.round(ms))) : MAX_SETTLE_MS;
}

/**
 * What the light will show once a plan is done (the targets of its transitions, not where a fade is now), to
 * keep the registry current without waiting for a refresh: power, colour (a non-transient SetWaveformOptional
 * changes only its flagged components), zones (SetColorZones, SetExtendedColorZones, and a whole-light colour
 * paints every zone), infrared and the firmware effect. A waveform that returns (transient, or SINE and TRIANGLE:
 * pulse, breathe) ends where it began: the colour before it is held while it runs. `settleMs` says how long each transition runs.
 */
export function predict(plan: Plan, before: PredictFrom): Prediction {
  const facts: FactValues = {};
  const settleMs: { -readonly [K in WrittenFact]?: number } = {};
  const settle = (fact: WrittenFact, ms: number): void => {
    settleMs[fact] = Math.max(settleMs[fact] ?? 0, Math.min(MAX_SETTLE_MS, ms));
  };
  let color = before.color;
  let colorTouched = false;
  let zones: Hsbk[] | null = before.zones === null ? null : [...before.zones];
  let zonesTouched = false;
  // Set64 and CopyFrameBuffer, and a whole-light colour, on a matrix light's pixels (paint.ts).
  const pixels = new PixelPrediction(before.tiles ?? null, before.pixels ?? null);
  const paint = (c: Hsbk, ms: number): void => {
    color = c;
    colorTouched = true;
    settle('color', ms);
    if (before.pixels != null) {
      pixels.all(c);
      settle('pixels', ms);
    }
    // A colour for the whole light (SetColor) paints every zone of a strip.
    if (zones !== null) {
      zones = zones.map(() => c);
      zonesTouched = true;
      settle('zones', ms);
    }
  };
  for (const step of plan.steps) {
    for (const m of step) {
      switch (m.name) {
        case 'SetLightPower':
          facts.power = powerFromWire(m.payload.level);
          settle('power', m.payload.durationMs);
          break;
        case 'SetPower':
          facts.power = powerFromWire(m.payload.level);
          break;
        case 'SetColor':
          paint(hsbkFromWire(m.payload.color), m.payload.durationMs);
          break;
        case 'SetInfrared':
          facts.infrared = fractionFromWire(m.payload.brightness);
          break;
        case 'SetMultiZoneEffect':
          facts.effect = effectName(ENUMS.MultiZoneEffectType, m.payload.settings.type);
          break;
        case 'SetTileEffect':
          facts.effect = effectName(ENUMS.TileEffectType, m.payload.settings.type);
          break;
        case 'SetWaveform':
        case 'SetWaveformOptional': {
          // One that sets no component only ends a running waveform (Effects Off): every zone keeps its colour.
          if (m.name === 'SetWaveformOptional' && !(m.payload.setHue || m.payload.setSaturation || m.payload.setBrightness || m.payload.setKelvin)) break;
          const ms = waveformMs(m.payload.periodMs, m.payload.cycles);
          if (waveformReturns(m.payload.transient, m.payload.waveform)) {
            // Back where it began once the effect is over: hold that rather than a sample of the effect.
            if (color !== null) {
              colorTouched = true;
              settle('color', ms);
            }
            if (zones !== null) {
              zonesTouched = true;
              settle('zones', ms);
            }
            break;
          }
          const target = hsbkFromWire(m.payload.color);
          if (m.name === 'SetWaveform') paint(target, ms);
          else if (color !== null) {
            const p = m.payload;
            paint(
              {
                hue: p.setHue ? target.hue : color.hue,
                saturation: p.setSaturation ? target.saturation : color.saturation,
                brightness: p.setBrightness ? target.brightness : color.brightness,
                kelvin: p.setKelvin ? target.kelvin : color.kelvin,
              },
              ms,
            );
          }
          break;
        }
        case 'SetColorZones':
          if (zones !== null) {
            const c = hsbkFromWire(m.payload.color);
            for (let i = m.payload.startIndex; i <= Math.min(m.payload.endIndex, zones.length - 1); i++) zones[i] = c;
            zonesTouched = true;
            settle('zones', m.payload.durationMs);
          }
          break;
        case 'SetExtendedColorZones':
          if (zones !== null) {
            const p = m.payload;
            for (let k = 0; k < Math.min(p.colorsCount, p.colors.length) && p.index + k < zones.length; k++) {
              zones[p.index + k] = hsbkFromWire(p.colors[k]!);
            }
            zonesTouched = true;
            settle('zones', p.durationMs);
          }
          break;
        case 'Set64':
          pixels.set64(m.payload);
          if (m.payload.rect.fbIndex === 0) settle('pixels', m.payload.durationMs);
          break;
        case 'CopyFrameBuffer':
          pixels.copy(m.payload);
          if (m.payload.dstFbIndex === 0) settle('pixels', m.payload.durationMs);
          break;
        // What renaming sets: stored as sent (a light keeps updated_at as given).
        case 'SetLabel':
          facts.label = m.payload.label;
          break;
        case 'SetGroup':
          facts.group = { id: m.payload.group, label: m.payload.label, updatedAtNs: m.payload.updatedAtNs };
          break;
        case 'SetLocation':
          facts.location = { id: m.payload.location, label: m.payload.label, updatedAtNs: m.payload.updatedAtNs };
          break;
        default:
          break;
      }
    }
  }
  // A strip's whole colour follows its zones: when a write leaves every zone alike, that is the light's colour too
  // (zone messages do not say what the device's own colour becomes).
  const painted: readonly Hsbk[] | null = zonesTouched ? zones : null;
  const first = painted?.[0];
  if (painted !== null && first !== undefined && painted.every((z) => sameHsbk(z, first)) && (color === null || !sameHsbk(color, first))) {
    color = first;
    colorTouched = true;
    settle('color', settleMs.zones ?? 0);
  }
  if (colorTouched && color !== null) facts.color = color;
  if (zonesTouched && zones !== null) facts.zones = zones;
  if (pixels.result !== null) facts.pixels = pixels.result;
  return { facts, settleMs };
}

/** The facts of predict() alone (colour before, and zones before for strips). */
export function factsAfter(plan: Plan, before: Hsbk | null, zonesBefore: readonly Hsbk[] | null = null): FactValues {
  return predict(plan, { color: before, zones: zonesBefore }).facts;
}


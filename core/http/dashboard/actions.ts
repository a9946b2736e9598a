// What the dashboard page can ask of the lights, checked field by field, and run through the light service.
// The page names lights only by id, group id, location id or `all`; anything else is refused before the service
// sees it. Results are the service's per-light results (ok / timed_out / offline).

import { KELVIN_MAX, KELVIN_MIN, LightwireError, type LightResult } from '../../index.js';
import type { DashboardService } from './service.js';

export const EFFECTS = ['pulse', 'breathe', 'move', 'morph', 'flame', 'clouds', 'sunrise', 'sunset'] as const;
export type EffectName = (typeof EFFECTS)[number];

export type DashboardAction =
  | { readonly op: 'toggle'; readonly selector: string }
  | { readonly op: 'power'; readonly selector: string; readonly power: 'on' | 'off' }
  | {
      readonly op: 'state';
      readonly selector: string;
      readonly brightness?: number;
      readonly hue?: number;
      readonly saturation?: number;
      readonly kelvin?: number;
      readonly durationS?: number;
    }
  | { readonly op: 'effect'; readonly selector: string; readonly effect: EffectName; readonly color?: string }
  | { readonly op: 'effectsOff'; readonly selector: string }
  | { readonly op: 'scene'; readonly scene: string };

const SELECTOR = /^(all|id:[0-9a-f]{12}|group_id:[0-9a-f]{32}|location_id:[0-9a-f]{32})$/;
const SCENE_ID = /^[0-9a-fA-F-]{1,64}$/;
const OPS = ['toggle', 'power', 'state', 'effect', 'effectsOff', 'scene'] as const;
/** Waveform effects from the page: a few visible cycles. */
const WAVEFORM_CYCLES = 3;
const WAVEFORM_PERIOD_S = 1;
/** Transition of a slider change: short, so dragging feels direct. */
export const SLIDER_DURATION_S = 0.25;

function invalid(field: string, reason: string): LightwireError<'PARAMETER_INVALID'> {
  return new LightwireError('PARAMETER_INVALID', { field, reason });
}

function optionalNumber(body: Record<string, unknown>, field: string, min: number, max: number): number | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) throw invalid(field, `must be a number from ${min} to ${max}`);
  return v;
}

function selectorOf(body: Record<string, unknown>): string {
  const s = body.selector;
  if (s === undefined) throw new LightwireError('PARAMETER_MISSING', { field: 'selector' });
  if (typeof s !== 'string' || !SELECTOR.test(s)) throw invalid('selector', 'must be all, id:<serial>, group_id:<id> or location_id:<id>');
  return s;
}

/** Checks a request body from the page; PARAMETER_INVALID / PARAMETER_MISSING name the field at fault. */
export function parseAction(body: unknown): DashboardAction {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new LightwireError('BODY_INVALID', { reason: 'must be a JSON object' });
  const b = body as Record<string, unknown>;
  const op = b.op;
  if (op === undefined) throw new LightwireError('PARAMETER_MISSING', { field: 'op' });
  if (typeof op !== 'string' || !(OPS as readonly string[]).includes(op)) throw invalid('op', `must be one of ${OPS.join(', ')}`);
  switch (op as (typeof OPS)[number]) {
    case 'toggle':
      return { op: 'toggle', selector: selectorOf(b) };
    case 'effectsOff':
      return { op: 'effectsOff', selector: selectorOf(b) };
    case 'power': {
      const selector = selectorOf(b);
      if (b.power !== 'on' && b.power !== 'off') throw invalid('power', 'must be "on" or "off"');
      return { op: 'power', selector, power: b.power };
    }
    case 'state': {
      const selector = selectorOf(b);
      const out = {
        op: 'state' as const,
        selector,
        brightness: optionalNumber(b, 'brightness', 0, 1),
        hue: optionalNumber(b, 'hue', 0, 360),
        saturation: optionalNumber(b, 'saturation', 0, 1),
        kelvin: optionalNumber(b, 'kelvin', KELVIN_MIN, KELVIN_MAX),
        durationS: optionalNumber(b, 'durationS', 0, 60),
      };
      if (out.brightness === undefined && out.hue === undefined && out.saturation === undefined && out.kelvin === undefined) {
        throw invalid('state', 'names nothing to change (brightness, hue, saturation or kelvin)');
      }
      return out;
    }
    case 'effect': {
      const selector = selectorOf(b);
      const effect = b.effect;
      if (typeof effect !== 'string' || !(EFFECTS as readonly string[]).includes(effect)) throw invalid('effect', `must be one of ${EFFECTS.join(', ')}`);
      if (b.color !== undefined && (typeof b.color !== 'string' || b.color.length > 64)) throw invalid('color', 'must be a colour string');
      return { op: 'effect', selector, effect: effect as EffectName, ...(typeof b.color === 'string' ? { color: b.color } : {}) };
    }
    case 'scene': {
      if (typeof b.scene !== 'string' || !SCENE_ID.test(b.scene)) throw invalid('scene', 'must be a scene id');
      return { op: 'scene', scene: b.scene };
    }
  }
}

/** Runs one checked action; the service's per-light results. */
export async function runAction(service: DashboardService, action: DashboardAction): Promise<LightResult[]> {
  switch (action.op) {
    case 'toggle':
      return service.toggle(action.selector, { durationS: 0 });
    case 'power':
      return service.setState(action.selector, { power: action.power, durationS: 0 });
    case 'effectsOff':
      return service.effectsOff(action.selector, {});
    case 'scene':
      return service.activateScene(action.scene, {});
    case 'state': {
      const color = {
        ...(action.hue !== undefined ? { hue: action.hue } : {}),
        ...(action.saturation !== undefined ? { saturation: action.saturation } : {}),
        ...(action.kelvin !== undefined ? { kelvin: action.kelvin } : {}),
      };
      return service.setState(action.selector, {
        ...(Object.keys(color).length > 0 ? { color } : {}),
        ...(action.brightness !== undefined ? { brightness: action.brightness } : {}),
        durationS: action.durationS ?? SLIDER_DURATION_S,
      });
    }
    case 'effect': {
      const color = action.color ?? 'white';
      switch (action.effect) {
        case 'pulse':
          return service.pulse(action.selector, { color, cycles: WAVEFORM_CYCLES, periodS: WAVEFORM_PERIOD_S });
        case 'breathe':
          return service.breathe(action.selector, { color, cycles: WAVEFORM_CYCLES, periodS: WAVEFORM_PERIOD_S });
        case 'move':
          return service.move(action.selector, {});
        case 'morph':
          return service.morph(action.selector, {});
        case 'flame':
          return service.flame(action.selector, {});
        case 'clouds':
          return service.clouds(action.selector, {});
        case 'sunrise':
          return service.sunrise(action.selector, {});
        case 'sunset':
          return service.sunset(action.selector, {});
      }
    }
  }
}

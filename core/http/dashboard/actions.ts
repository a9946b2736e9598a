// What the dashboard page can ask of the lights, and run through the light service. The page names lights only
// by id, group id, location id or `all`; anything else is refused before the service sees it. Its effect buttons
// are the catalogue's effects (sent to the page as data: DASHBOARD_EFFECTS); every value is checked by the service's
// one parser, so a bad value gets the same code and text here as from HTTP, Node-RED or the library. Results are the
// service's per-light results (ok / timed_out / offline).

import { EFFECT_OPERATIONS, FIRMWARE_EFFECT_MIN_MAJOR, LightwireError, parseRequest, type Checked, type EffectOperationName, type LightResult, type Need } from '../../index.js';
import type { DashboardService } from './service.js';

/** An effect button: the catalogue's name and title, and the capability a light needs to run it (null: any light). */
export interface DashboardEffect {
  readonly name: string;
  readonly title: string;
  readonly needs: Need | null;
  /** The firmware major version a light needs to run it too (the sky effects: 4), or null. */
  readonly minFirmware: number | null;
}

/** The effect buttons, from the catalogue: every effect but Effects Off, which has a button of its own. */
export const DASHBOARD_EFFECTS: readonly DashboardEffect[] = Object.freeze(
  EFFECT_OPERATIONS.filter((o) => o.name !== 'effectsOff').map((o) =>
    Object.freeze({
      name: o.effect.name,
      title: o.effect.title,
      needs: o.needs ?? null,
      minFirmware: (o.firmware === undefined ? undefined : FIRMWARE_EFFECT_MIN_MAJOR[o.firmware]) ?? null,
    }),
  ),
);
export const EFFECTS: readonly string[] = Object.freeze(DASHBOARD_EFFECTS.map((e) => e.name));

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
  | { readonly op: 'effect'; readonly selector: string; readonly effect: string; readonly color?: string }
  | { readonly op: 'effectsOff'; readonly selector: string }
  | { readonly op: 'scene'; readonly scene: string }
  | { readonly op: 'label'; readonly selector: string; readonly label: string }
  | { readonly op: 'rename'; readonly kind: 'group' | 'location'; readonly from: string; readonly to: string }
  | { readonly op: 'theme'; readonly selector: string; readonly request: Checked<'theme'> }
  | { readonly op: 'paint'; readonly selector: string; readonly request: Checked<'paint'> };

/** A light may be named with one of its parts (`id:SERIAL|uplight`, core/control/parts.ts). */
const SELECTOR = /^(all|id:[0-9a-f]{12}(\|[A-Za-z][A-Za-z0-9_]{1,31})?|group_id:[0-9a-f]{32}|location_id:[0-9a-f]{32})$/;
const SCENE_ID = /^[0-9a-fA-F-]{1,64}$/;
const OPS = ['toggle', 'power', 'state', 'effect', 'effectsOff', 'scene', 'label', 'rename', 'theme', 'paint'] as const;
/** Transition of a theme or a pixel painted from the page. */
const THEME_DURATION_S = 1;
const PAINT_DURATION_S = 0.25;
/** Waveform effects from the page: a few visible cycles. */
const WAVEFORM_CYCLES = 3;
const WAVEFORM_PERIOD_S = 1;
/** Transition of a slider change: short, so dragging feels direct. */
export const SLIDER_DURATION_S = 0.25;

function invalid(field: string, reason: string): LightwireError<'PARAMETER_INVALID'> {
  return new LightwireError('PARAMETER_INVALID', { field, reason });
}

/** A value the service checks (its one text per check); only its presence is read here. */
function numberOf<K extends string>(body: Record<string, unknown>, key: K): { readonly [P in K]?: number } {
  const v = body[key];
  return (v === undefined || v === null ? {} : { [key]: v as number }) as { readonly [P in K]?: number };
}

function selectorOf(body: Record<string, unknown>): string {
  const s = body.selector;
  if (s === undefined) throw new LightwireError('PARAMETER_MISSING', { field: 'selector' });
  if (typeof s !== 'string' || !SELECTOR.test(s)) throw invalid('selector', 'must be all, id:<serial> (or id:<serial>|<part>), group_id:<id> or location_id:<id>');
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
      // Checked by the service's one parser, before the action runs.
      const { power } = parseRequest('setState', { power: b.power }, { vocabulary: 'library' });
      if (power === undefined) throw new LightwireError('PARAMETER_MISSING', { field: 'power' });
      return { op: 'power', selector, power };
    }
    case 'state': {
      const selector = selectorOf(b);
      const out = {
        op: 'state' as const,
        selector,
        ...numberOf(b, 'brightness'),
        ...numberOf(b, 'hue'),
        ...numberOf(b, 'saturation'),
        ...numberOf(b, 'kelvin'),
        ...numberOf(b, 'durationS'),
      };
      if (out.brightness === undefined && out.hue === undefined && out.saturation === undefined && out.kelvin === undefined) {
        throw invalid('state', 'names nothing to change (brightness, hue, saturation or kelvin)');
      }
      return out;
    }
    case 'effect': {
      const selector = selectorOf(b);
      const effect = b.effect;
      if (typeof effect !== 'string' || !EFFECTS.includes(effect)) throw invalid('effect', `must be one of ${EFFECTS.join(', ')}`);
      if (b.color !== undefined && (typeof b.color !== 'string' || b.color.length > 64)) throw invalid('color', 'must be a colour string');
      return { op: 'effect', selector, effect, ...(typeof b.color === 'string' ? { color: b.color } : {}) };
    }
    case 'scene': {
      if (typeof b.scene !== 'string' || !SCENE_ID.test(b.scene)) throw invalid('scene', 'must be a scene id');
      return { op: 'scene', scene: b.scene };
    }
    // Renaming in place: a light's label (the page names it by id), a group's or location's name (OLD -> NEW).
    case 'label': {
      const selector = selectorOf(b);
      if (!selector.startsWith('id:')) throw invalid('selector', 'must be id:<serial>: a label is for one light');
      return { op: 'label', selector, label: parseRequest('setLabel', { label: b.label }, { vocabulary: 'library' }).label };
    }
    case 'rename': {
      if (b.kind !== 'group' && b.kind !== 'location') throw invalid('kind', 'must be "group" or "location"');
      const { from, to } = parseRequest(b.kind === 'group' ? 'renameGroup' : 'renameLocation', { from: b.from, to: b.to }, { vocabulary: 'library' });
      return { op: 'rename', kind: b.kind, from, to };
    }
    // Paint Theme and Paint Pixels: the rest of the body is the request, checked by the service's one parser.
    case 'theme': {
      const selector = selectorOf(b);
      return { op: 'theme', selector, request: parseRequest('theme', { durationS: THEME_DURATION_S, ...requestOf(b) }, { vocabulary: 'library', strict: true }) };
    }
    case 'paint': {
      const selector = selectorOf(b);
      return { op: 'paint', selector, request: parseRequest('paint', { durationS: PAINT_DURATION_S, ...requestOf(b) }, { vocabulary: 'library', strict: true }) };
    }
  }
}

/** The body without the page's own keys (op, selector). */
function requestOf(b: Record<string, unknown>): Record<string, unknown> {
  const { op: _op, selector: _selector, ...rest } = b;
  return rest;
}

/** Runs one action; the service checks its values and answers with its per-light results. */
export async function runAction(service: DashboardService, action: DashboardAction): Promise<LightResult[]> {
  switch (action.op) {
    case 'toggle':
      return service.perform('toggle', action.selector, { durationS: 0 });
    case 'power':
      return service.perform('setState', action.selector, { power: action.power, durationS: 0 });
    case 'effectsOff':
      return service.perform('effectsOff', action.selector, {});
    case 'scene':
      return service.activateScene(action.scene, {});
    case 'label':
      return service.perform('setLabel', action.selector, { label: action.label });
    case 'rename':
      return service.rename(action.kind === 'group' ? 'renameGroup' : 'renameLocation', { from: action.from, to: action.to });
    case 'theme':
      return service.perform('theme', action.selector, action.request);
    case 'paint':
      return service.perform('paint', action.selector, action.request);
    case 'state': {
      const color = {
        ...(action.hue !== undefined ? { hue: action.hue } : {}),
        ...(action.saturation !== undefined ? { saturation: action.saturation } : {}),
        ...(action.kelvin !== undefined ? { kelvin: action.kelvin } : {}),
      };
      return service.perform('setState', action.selector, {
        ...(Object.keys(color).length > 0 ? { color } : {}),
        ...(action.brightness !== undefined ? { brightness: action.brightness } : {}),
        durationS: action.durationS ?? SLIDER_DURATION_S,
      });
    }
    case 'effect': {
      const operation = EFFECT_OPERATIONS.find((o) => o.effect.name === action.effect)!;
      const takes = (v1: string): boolean => operation.params.some((p) => p.v1 === v1);
      // A waveform from the page: a few visible cycles of the colour picked on the panel.
      const request = {
        ...(takes('color') ? { color: action.color ?? 'white' } : {}),
        ...(takes('cycles') && takes('persist') ? { cycles: WAVEFORM_CYCLES, periodS: WAVEFORM_PERIOD_S } : {}),
      };
      return service.perform(operation.name as EffectOperationName, action.selector, service.check(operation.name as EffectOperationName, request));
    }
  }
}

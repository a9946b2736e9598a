// What a set-state message asks for: msg.payload (and msg.selector) turned into one checked operation on the
// light service, before anything is sent. Parameter names are the HTTP API v1's (duration, from_color,
// power_on, ...), so a body copied from the LIFX documentation works as a payload; the service checks ranges
// and colour strings, this file checks shapes and types and refuses unknown keys (a typo must not pass
// silently as "nothing to change").

import { LightwireError, clipped, quoted, type LightResult, type LightService, type Scene, type SetStateRequest } from '../core/index.js';

type Kind = 'string' | 'number' | 'boolean' | 'color' | 'colors' | 'colorInput' | 'power';

interface Field {
  readonly kind: Kind;
  /** The service's name for it (user units in the name: durationS, periodS). */
  readonly key: string;
}

const f = (kind: Kind, key: string): Field => ({ kind, key });

/** Set State (https://api.developer.lifx.com/docs/set-state), plus `fast`. */
const SET_STATE_FIELDS: Readonly<Record<string, Field>> = Object.freeze({
  // "ON" as a payload is on, so {power: "ON"} is too: power is read as the shorthands are (power()).
  power: f('power', 'power'),
  // Set State takes a colour string or the numbers themselves (the service checks both).
  color: f('colorInput', 'color'),
  brightness: f('number', 'brightness'),
  infrared: f('number', 'infrared'),
  duration: f('number', 'durationS'),
});

const WAVEFORM_FIELDS = {
  color: f('color', 'color'),
  from_color: f('color', 'fromColor'),
  period: f('number', 'periodS'),
  cycles: f('number', 'cycles'),
  persist: f('boolean', 'persist'),
  power_on: f('boolean', 'powerOn'),
};

type EffectRunner = (service: LightService, selector: string, request: Record<string, unknown>, options: { fast: boolean }) => Promise<LightResult[]>;

interface EffectSpec {
  readonly fields: Readonly<Record<string, Field>>;
  readonly required: readonly string[];
  readonly run: EffectRunner;
}

/* eslint-disable @typescript-eslint/no-explicit-any -- the request was checked field by field against `fields` */
type AnyRequest = any;

/** Every effect the service offers, by the name a payload gives in `effect`. */
export const EFFECTS: Readonly<Record<string, EffectSpec>> = Object.freeze({
  pulse: { fields: WAVEFORM_FIELDS, required: ['color'], run: (s, sel, r, o) => s.pulse(sel, r as AnyRequest, o) },
  breathe: {
    fields: { ...WAVEFORM_FIELDS, peak: f('number', 'peak') },
    required: ['color'],
    run: (s, sel, r, o) => s.breathe(sel, r as AnyRequest, o),
  },
  move: {
    fields: { direction: f('string', 'direction'), period: f('number', 'periodS'), cycles: f('number', 'cycles'), power_on: f('boolean', 'powerOn') },
    required: [],
    run: (s, sel, r, o) => s.move(sel, r as AnyRequest, o),
  },
  morph: {
    fields: { period: f('number', 'periodS'), duration: f('number', 'durationS'), palette: f('colors', 'palette'), power_on: f('boolean', 'powerOn') },
    required: [],
    run: (s, sel, r, o) => s.morph(sel, r as AnyRequest, o),
  },
  flame: {
    fields: { period: f('number', 'periodS'), duration: f('number', 'durationS'), power_on: f('boolean', 'powerOn') },
    required: [],
    run: (s, sel, r, o) => s.flame(sel, r as AnyRequest, o),
  },
  clouds: { fields: { duration: f('number', 'durationS'), power_on: f('boolean', 'powerOn') }, required: [], run: (s, sel, r, o) => s.clouds(sel, r as AnyRequest, o) },
  sunrise: { fields: { duration: f('number', 'durationS'), power_on: f('boolean', 'powerOn') }, required: [], run: (s, sel, r, o) => s.sunrise(sel, r as AnyRequest, o) },
  sunset: { fields: { duration: f('number', 'durationS'), power_on: f('boolean', 'powerOn') }, required: [], run: (s, sel, r, o) => s.sunset(sel, r as AnyRequest, o) },
  off: { fields: { power_off: f('boolean', 'powerOff') }, required: [], run: (s, sel, r, o) => s.effectsOff(sel, r as AnyRequest, o) },
  clean: { fields: { stop: f('boolean', 'stop'), duration: f('number', 'durationS') }, required: [], run: (s, sel, r, o) => s.clean(sel, r as AnyRequest, o) },
});
/* eslint-enable @typescript-eslint/no-explicit-any */

export const EFFECT_NAMES: readonly string[] = Object.freeze(Object.keys(EFFECTS));

/** One checked request, ready to run. */
export type Operation =
  | { readonly kind: 'setState'; readonly request: SetStateRequest; readonly fast: boolean }
  | { readonly kind: 'toggle'; readonly durationS: number | undefined; readonly fast: boolean }
  | { readonly kind: 'effect'; readonly effect: string; readonly request: Record<string, unknown>; readonly fast: boolean }
  | { readonly kind: 'scene'; readonly scene: string; readonly durationS: number | undefined; readonly fast: boolean }
  | { readonly kind: 'capture'; readonly name: string };

/** What the node itself adds to every message: its own defaults, overridden by the message. */
export interface NodeDefaults {
  /** The node's transition; undefined = the config node's. */
  readonly durationS?: number | undefined;
  readonly fast: boolean;
}

function invalid(field: string, reason: string): LightwireError<'PARAMETER_INVALID'> {
  return new LightwireError('PARAMETER_INVALID', { field, reason });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A colour: a colour string as the HTTP API takes it ("blue", "#ff0000", "kelvin:2700 brightness:0.5"), or an
 * object {hue (degrees), saturation, brightness (0-1), kelvin}, which the service takes as it is (ColorInput) and
 * checks, as it checks a string.
 */
function colorInput(field: string, value: unknown): unknown {
  if (typeof value !== 'string' && !isRecord(value)) throw invalid(field, 'must be a colour string or an object {hue, saturation, brightness, kelvin}');
  return value;
}

function fieldValue(name: string, field: Field, value: unknown): unknown {
  const at = `payload.${name}`;
  switch (field.kind) {
    case 'color':
    case 'colorInput':
      return colorInput(at, value);
    case 'colors':
      if (!Array.isArray(value)) throw invalid(at, 'must be a list of colours');
      return value.map((c, i) => colorInput(`${at}[${i}]`, c));
    case 'power':
      return power(at, value);
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid(at, `must be a number, got ${quoted(value)}`);
      return value;
    default:
      if (typeof value !== field.kind) throw invalid(at, `must be a ${field.kind}, got ${quoted(value)}`);
      return value;
  }
}

/** Maps a payload's fields through a table; unknown keys (besides `allowed`) are refused. */
function mapFields(payload: Record<string, unknown>, fields: Readonly<Record<string, Field>>, allowed: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(payload)) {
    if (allowed.includes(name)) continue;
    const field = Object.hasOwn(fields, name) ? fields[name] : undefined;
    if (field === undefined) {
      throw invalid(`payload.${name}`, `is not a parameter here; use ${[...Object.keys(fields), ...allowed].join(', ')}`);
    }
    if (value === undefined) continue;
    out[field.key] = fieldValue(name, field, value);
  }
  return out;
}

function fastOf(payload: Record<string, unknown>, defaults: NodeDefaults): boolean {
  if (payload.fast === undefined) return defaults.fast;
  if (typeof payload.fast !== 'boolean') throw invalid('payload.fast', 'must be true or false');
  return payload.fast;
}

function durationOf(payload: Record<string, unknown>, defaults: NodeDefaults): number | undefined {
  const d = payload.duration;
  if (d === undefined) return defaults.durationS;
  if (typeof d !== 'number' || !Number.isFinite(d)) throw invalid('payload.duration', 'must be a number of seconds');
  return d;
}

/** A power word, in any case and with spaces around it, as the "on" / "off" payloads are read. */
function power(field: string, value: unknown): 'on' | 'off' {
  const word = typeof value === 'string' ? value.trim().toLowerCase() : null;
  if (word !== 'on' && word !== 'off') throw invalid(field, `must be "on" or "off", got ${quoted(value)}`);
  return word;
}

function nonEmptyString(field: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw invalid(field, 'must be a non-empty string');
  return value.trim();
}

/** A Set State request with the node's transition filled in when the message gives none. */
function setState(request: Record<string, unknown>, defaults: NodeDefaults, fast: boolean): Operation {
  if (request.durationS === undefined && defaults.durationS !== undefined) request.durationS = defaults.durationS;
  return { kind: 'setState', request: request as SetStateRequest, fast };
}

/**
 * msg.payload -> one operation. Forms: an object (power, color, brightness, infrared, duration, fast);
 * "on" / "off" / "toggle"; true / false; any other string is a colour; a number 0-1 is a brightness;
 * {effect: name, ...} for every effect in EFFECTS; {scene: name or uuid, duration?}; {capture: name}.
 * A payload that throws while it is read (a getter, a proxy) is PARAMETER_INVALID too.
 */
export function parsePayload(payload: unknown, defaults: NodeDefaults): Operation {
  return readingMessage('payload', () => operationOf(payload, defaults));
}

/** Runs a read of the message: what it throws that is not a coded error (a getter, a proxy) is PARAMETER_INVALID. */
function readingMessage<T>(field: string, read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof LightwireError) throw err;
    throw invalid(field, `cannot be read: ${clipped(err instanceof Error ? err.message : 'it threw')}`);
  }
}

function operationOf(payload: unknown, defaults: NodeDefaults): Operation {
  if (typeof payload === 'string') {
    const word = payload.trim().toLowerCase();
    if (word === '') throw new LightwireError('PARAMETER_MISSING', { field: 'payload' });
    if (word === 'on' || word === 'off') return setState({ power: word }, defaults, defaults.fast);
    if (word === 'toggle') return { kind: 'toggle', durationS: defaults.durationS, fast: defaults.fast };
    return setState({ color: payload.trim() }, defaults, defaults.fast);
  }
  if (typeof payload === 'boolean') return setState({ power: payload ? 'on' : 'off' }, defaults, defaults.fast);
  if (typeof payload === 'number') {
    // Range checks belong to the service (PARAMETER_INVALID brightness); a NaN never reaches it.
    if (!Number.isFinite(payload)) throw invalid('payload', 'must be a finite number (a brightness from 0 to 1)');
    return setState({ brightness: payload }, defaults, defaults.fast);
  }
  if (payload === undefined || payload === null) throw new LightwireError('PARAMETER_MISSING', { field: 'payload' });
  if (!isRecord(payload)) {
    throw invalid('payload', 'must be an object, "on", "off", "toggle", a colour string, true/false or a brightness from 0 to 1');
  }
  const fast = fastOf(payload, defaults);
  if (payload.effect !== undefined) {
    const name = nonEmptyString('payload.effect', payload.effect);
    const spec = Object.hasOwn(EFFECTS, name) ? EFFECTS[name] : undefined;
    if (spec === undefined) throw invalid('payload.effect', `must be one of ${EFFECT_NAMES.join(', ')}`);
    const request = mapFields(payload, spec.fields, ['effect', 'fast']);
    for (const required of spec.required) {
      if (payload[required] === undefined) throw new LightwireError('PARAMETER_MISSING', { field: `payload.${required}` });
    }
    return { kind: 'effect', effect: name, request, fast };
  }
  if (payload.scene !== undefined) {
    mapFields(payload, { duration: f('number', 'durationS') }, ['scene', 'fast']);
    return { kind: 'scene', scene: nonEmptyString('payload.scene', payload.scene), durationS: durationOf(payload, defaults), fast };
  }
  if (payload.capture !== undefined) {
    mapFields(payload, {}, ['capture']);
    return { kind: 'capture', name: nonEmptyString('payload.capture', payload.capture) };
  }
  if (payload.toggle !== undefined) {
    if (payload.toggle !== true) throw invalid('payload.toggle', 'must be true');
    mapFields(payload, { duration: f('number', 'durationS') }, ['toggle', 'fast']);
    return { kind: 'toggle', durationS: durationOf(payload, defaults), fast };
  }
  const request = mapFields(payload, SET_STATE_FIELDS, ['fast']);
  if (Object.keys(request).filter((k) => k !== 'durationS').length === 0) {
    throw new LightwireError('PARAMETER_MISSING', { field: 'payload.power, payload.color, payload.brightness or payload.infrared' });
  }
  return setState(request, defaults, fast);
}

/**
 * The selector a message acts on: msg.selector wins over the node's. An empty (or blank) msg.selector counts as
 * not given, as a missing one does: a Change node that sets it from an empty flow variable leaves the node's own.
 * Scenes carry their own.
 */
export function selectorOf(msgSelector: unknown, nodeSelector: string): string {
  return readingMessage('msg.selector', () => selectorIn(msgSelector, nodeSelector));
}

function selectorIn(msgSelector: unknown, nodeSelector: string): string {
  if (msgSelector !== undefined && msgSelector !== null) {
    if (typeof msgSelector !== 'string') throw invalid('msg.selector', `must be a string, got ${quoted(msgSelector)}`);
    if (msgSelector.trim() !== '') return msgSelector.trim();
  }
  if (nodeSelector.trim() === '') throw new LightwireError('PARAMETER_MISSING', { field: 'selector' });
  return nodeSelector.trim();
}

export interface Outcome {
  /** One per light: ok, timed_out or offline. */
  readonly results: LightResult[];
  /** The scene a capture stored. */
  readonly scene?: Scene;
}

/** Runs a checked operation. */
export async function runOperation(service: LightService, selector: () => string, op: Operation): Promise<Outcome> {
  switch (op.kind) {
    case 'setState':
      return { results: await service.setState(selector(), op.request, { fast: op.fast }) };
    case 'toggle':
      return { results: await service.toggle(selector(), op.durationS === undefined ? {} : { durationS: op.durationS }, { fast: op.fast }) };
    case 'effect':
      return { results: await EFFECTS[op.effect]!.run(service, selector(), op.request, { fast: op.fast }) };
    case 'scene':
      // By uuid or, in a flow more often, by name: the service finds either (findScene).
      return { results: await service.activateScene(op.scene, op.durationS === undefined ? {} : { durationS: op.durationS }, { fast: op.fast }) };
    case 'capture': {
      const sel = selector();
      const scene = await service.captureScene(op.name, sel);
      // A capture changes no light: each captured light is reported ok, in the same shape as a write.
      const captured = new Set(scene.states.map((s) => s.selector));
      const results = service
        .list(sel)
        .filter((l) => captured.has(`id:${l.id}`))
        .map((l): LightResult => ({ id: l.id, label: l.label, status: 'ok' }));
      return { results, scene };
    }
  }
}

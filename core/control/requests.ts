// Requests checked once. Every face hands the service unknown input (an HTTP body, a flow message, a dashboard
// click, a library call); this module turns it into a checked, frozen request of the operation the catalogue
// declares, or throws the one coded error for the first bad field. Planners take only what this module makes (the
// brand below is module-private), so they never check again; the codec keeps its range checks as the wire's last
// guard.
//
// Each check's text is written once (CHECK_TEXT), so a bad value gets the same code and text from every face. Error
// fields name the parameter in the caller's vocabulary: `v1` (HTTP and Node-RED: `power_on`, `from_color`) or
// `library` (`powerOn`, `fromColor`).

import { LightwireError, quoted } from '../errors.js';
import { DURATION_MAX_S, type PowerState } from '../protocol/index.js';
import { editDistance } from '../text.js';
import { LABEL_MAX_BYTES, OPERATIONS, THEME_NAMES, type OperationName, type ParamDecl } from './catalogue.js';
import { COLOR_RANGES, parseColor, withBrightness } from './colors.js';
import type { PartialHsbk, StateChange } from './types.js';

/** Whose names a request uses: the HTTP API's (and Node-RED's) or the library's. */
export type Vocabulary = 'v1' | 'library';

/** A colour as numbers, for faces that have them (HomeKit, Node-RED): any of the four, in user units. */
export interface ColorInput {
  /** Degrees, 0-360. */
  readonly hue?: number;
  /** 0-1. */
  readonly saturation?: number;
  /** 0-1. */
  readonly brightness?: number;
  /** 1500-9000 (each light clamps to its own range). */
  readonly kelvin?: number;
}

// ---- request types, derived from the catalogue ----

type Params<N extends OperationName> = (typeof OPERATIONS)[N]['params'][number];

type InputValue<P> = P extends { readonly kind: 'power' }
  ? PowerState
  : P extends { readonly kind: 'number' }
    ? number
    : P extends { readonly kind: 'boolean' }
      ? boolean
      : P extends { readonly kind: 'enum'; readonly values: readonly (infer V)[] }
        ? V
        : P extends { readonly kind: 'color' }
          ? string | ColorInput
          : P extends { readonly kind: 'colors' }
            ? readonly (string | ColorInput)[]
            : P extends { readonly kind: 'enumList' }
              ? readonly string[]
              : P extends { readonly kind: 'state' }
                ? SetStateRequest
                : P extends { readonly kind: 'states'; readonly selector: true }
                  ? readonly (SetStateRequest & { readonly selector: string })[]
                  : P extends { readonly kind: 'states' }
                    ? readonly SetStateRequest[]
                    : P extends { readonly kind: 'grid' }
                      ? readonly (readonly (string | ColorInput)[])[]
                      : P extends { readonly kind: 'text' | 'label' }
                        ? string
                        : never;

type Key<P> = P extends { readonly key: infer K extends string } ? K : never;
type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** A request in the library's names, as the catalogue declares it: required parameters required, the rest optional. */
export type RequestOf<N extends OperationName> = Simplify<
  { readonly [P in Params<N> as P extends { readonly required: true } ? Key<P> : never]: InputValue<P> } & {
    readonly [P in Params<N> as P extends { readonly required: true } ? never : Key<P>]?: InputValue<P>;
  }
>;

export type SetStateRequest = RequestOf<'setState'>;

type CheckedValue<P> = P extends { readonly kind: 'color' }
  ? PartialHsbk
  : P extends { readonly kind: 'colors' }
    ? readonly PartialHsbk[]
    : P extends { readonly kind: 'grid' }
      ? readonly (readonly PartialHsbk[])[]
      : InputValue<P>;

declare const checkedBrand: unique symbol;
/** Made only here: a planner that takes one never checks it again. */
type Brand<N extends OperationName> = { readonly [checkedBrand]: N };

/**
 * A checked request: every value in range, colours parsed, defaults filled in (parameters with a default are
 * present, except the service's own default transition, which the service fills in when a face checked alone).
 */
export type Checked<N extends OperationName> = CheckedValues<N> & Brand<N>;

/** Whether a checked request always carries the parameter. */
type Always<P> = P extends { readonly required: true } ? true : P extends { readonly default: 'service' } ? false : P extends { readonly default: unknown } ? true : false;

/** A checked request's values, without the brand (for helpers shared by several planners). */
export type CheckedValues<N extends OperationName> = Simplify<
  { readonly [P in Params<N> as Always<P> extends true ? Key<P> : never]: CheckedValue<P> } & {
    readonly [P in Params<N> as Always<P> extends true ? never : Key<P>]?: CheckedValue<P>;
  }
>;

/** A checked Set State: the planner's input. */
export type CheckedChange = StateChange & Brand<'setState'>;

// ---- the checks, one text each ----

/** The one text of each check. */
export const CHECK_TEXT = Object.freeze({
  power: 'must be "on" or "off"',
  boolean: 'must be true or false',
  number: (min: number | undefined, max: number | undefined): string =>
    min === undefined && max === undefined
      ? 'must be a finite number'
      : max === undefined
        ? `must be a number from ${min}`
        : `must be a number from ${min ?? -Infinity} to ${max}`,
  enum: (values: readonly string[]): string => `must be one of ${values.map((v) => JSON.stringify(v)).join(', ')}`,
  color: 'must be a colour string or an object {hue, saturation, brightness, kelvin}',
  colorKey: 'is not a colour component (hue, saturation, brightness, kelvin)',
  colorEmpty: 'names no colour component',
  list: (min: number | undefined, max: number | undefined): string =>
    min !== undefined && max !== undefined ? `must be a list of ${min} to ${max} items` : 'must be a list',
  object: 'must be an object',
  grid: (maxRows: number | undefined): string => `must be a list of 1 to ${maxRows ?? 'any number of'} rows, each a list of as many colours as the first`,
  text: 'must be a non-empty string',
  integer: 'must be a whole number',
  label: `must be a string of 1 to ${LABEL_MAX_BYTES} bytes of UTF-8, not blank`,
  labelNul: 'must not hold a NUL character (a light reads its label up to the first one)',
  unknown: (known: readonly string[]): string => `is not a parameter here; use ${known.join(', ')}`,
});

/** The text a parameter's check gives for a bad value: the HTTP layer reports schema failures with it. */
export function checkText(p: ParamDecl): string {
  switch (p.kind) {
    case 'power':
      return CHECK_TEXT.power;
    case 'boolean':
      return CHECK_TEXT.boolean;
    case 'number':
      return CHECK_TEXT.number(p.min, p.max);
    case 'enum':
      return CHECK_TEXT.enum(p.values ?? []);
    case 'color':
      return CHECK_TEXT.color;
    case 'colors':
    case 'enumList':
    case 'states':
      return CHECK_TEXT.list(p.minItems, p.maxItems);
    case 'state':
      return CHECK_TEXT.object;
    case 'grid':
      return CHECK_TEXT.grid(p.maxItems);
    case 'text':
      return CHECK_TEXT.text;
    case 'label':
      return CHECK_TEXT.label;
  }
}

/** Every request this module made (and only those): `isChecked` tells them from a caller's plain object. */
const made = new WeakSet<object>();

/** Whether a value is a request checked by this module. */
export function isChecked(value: unknown): boolean {
  return typeof value === 'object' && value !== null && made.has(value);
}

function invalid(field: string, reason: string): LightwireError<'PARAMETER_INVALID'> {
  return new LightwireError('PARAMETER_INVALID', { field, reason });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function inRange(value: unknown, min: number | undefined, max: number | undefined): value is number {
  return typeof value === 'number' && Number.isFinite(value) && (min === undefined || value >= min) && (max === undefined || value <= max);
}

export interface ParseContext {
  readonly vocabulary: Vocabulary;
  /** Put before every field name: `payload.` for a flow message, `states[2].` inside a list. */
  readonly prefix?: string;
  /** For the `random` colour. */
  readonly random?: () => number;
  /** What `duration` is when omitted (the service's defaultDurationS); left out, the service fills it in. */
  readonly defaultDurationS?: number;
  /** Unknown keys are refused (Node-RED, the dashboard); HTTP sets them aside as warnings before. */
  readonly strict?: boolean;
  /** Keys the caller handles itself (Node-RED's `effect`, `fast`): neither refused nor read. */
  readonly ignore?: readonly string[];
}

const nameIn = (p: ParamDecl, vocabulary: Vocabulary): string => (vocabulary === 'v1' ? p.v1 : p.key);

/** The components of a colour given as numbers (each within its COLOR_RANGES range; kelvin as every product clamps it). */
const COLOR_COMPONENTS = ['hue', 'saturation', 'brightness', 'kelvin'] as const;

/** Checks a colour given as numbers and returns it as the planner's partial colour. */
export function colorFromNumbers(input: unknown, field = 'color'): PartialHsbk {
  if (!isRecord(input)) throw invalid(field, CHECK_TEXT.color);
  const out: { -readonly [K in keyof PartialHsbk]: number } = {};
  for (const key of Object.keys(input)) {
    if (!(COLOR_COMPONENTS as readonly string[]).includes(key)) throw invalid(`${field}.${key}`, CHECK_TEXT.colorKey);
    const k = key as (typeof COLOR_COMPONENTS)[number];
    const v = input[key];
    if (v === undefined) continue;
    const { min, max } = COLOR_RANGES[k];
    if (!inRange(v, min, max)) throw invalid(`${field}.${key}`, got(CHECK_TEXT.number(min, max), v));
    out[k] = k === 'kelvin' ? Math.round(v) : v;
  }
  if (Object.keys(out).length === 0) throw invalid(field, CHECK_TEXT.colorEmpty);
  return Object.freeze(out);
}

/** A colour string (the v1 grammar, COLOR_INVALID) or numbers. */
export function checkColor(field: string, value: unknown, random: (() => number) | undefined): PartialHsbk {
  if (typeof value === 'string') return parseColor(value, random ? { random } : {});
  return colorFromNumbers(value, field);
}

function checkValue(p: ParamDecl, field: string, value: unknown, ctx: ParseContext): unknown {
  switch (p.kind) {
    case 'power':
      if (value !== 'on' && value !== 'off') throw invalid(field, refusal(p, value));
      return value;
    case 'boolean':
      if (typeof value !== 'boolean') throw invalid(field, refusal(p, value));
      return value;
    case 'number':
      if (!inRange(value, p.min, p.max)) throw invalid(field, refusal(p, value));
      return value;
    case 'enum':
      if (typeof value !== 'string' || !(p.values ?? []).includes(value)) throw invalid(field, refusal(p, value));
      return value;
    case 'color':
      return checkColor(field, value, ctx.random);
    case 'colors':
      return Object.freeze(checkList(p, field, value).map((c, i) => checkColor(`${field}[${i}]`, c, ctx.random)));
    case 'enumList':
      return Object.freeze(
        checkList(p, field, value).map((v, i) => {
          if (typeof v !== 'string' || !(p.values ?? []).includes(v)) throw invalid(`${field}[${i}]`, itemRefusal(p, v));
          return v;
        }),
      );
    case 'state':
      return stateHash(field, value, ctx, false);
    case 'states':
      return Object.freeze(checkList(p, field, value).map((s, i) => stateHash(`${field}[${i}]`, s, ctx, p.selector === true)));
    case 'grid':
      return checkGrid(p, field, value, ctx);
    case 'text':
      if (typeof value !== 'string' || value.trim() === '') throw invalid(field, refusal(p, value));
      return value.trim();
    case 'label':
      return checkLabel(field, value);
  }
}

/**
 * Rows of colours: every row a list as long as the first (1 to maxItems colours), each colour checked as any colour
 * is (COLOR_INVALID for a string that does not parse). A grid repeats its colours: each string is parsed once.
 */
function checkGrid(p: ParamDecl, field: string, value: unknown, ctx: ParseContext): readonly (readonly PartialHsbk[])[] {
  const max = p.maxItems ?? Infinity;
  if (!Array.isArray(value) || value.length < 1 || value.length > max) throw invalid(field, CHECK_TEXT.grid(p.maxItems));
  const parsed = new Map<string, PartialHsbk>();
  let width: number | undefined;
  return Object.freeze(
    value.map((row: unknown, r) => {
      if (!Array.isArray(row) || row.length < 1 || row.length > max || (width !== undefined && row.length !== width)) {
        throw invalid(`${field}[${r}]`, width === undefined ? `must be a list of 1 to ${max} colours` : `must be a list of ${width} colours, as the first row is`);
      }
      width = row.length;
      return Object.freeze(
        row.map((c: unknown, k) => {
          if (typeof c !== 'string' || ctx.random !== undefined && c.includes('random')) return checkColor(`${field}[${r}][${k}]`, c, ctx.random);
          let color = parsed.get(c);
          if (color === undefined) parsed.set(c, (color = checkColor(`${field}[${r}][${k}]`, c, ctx.random)));
          return color;
        }),
      );
    }),
  );
}

/**
 * A label as a light stores it (https://lan.developer.lifx.com/docs/changing-a-device): surrounding whitespace is
 * dropped (a selector's value is trimmed too, so such a label could never be named), a blank one is refused, and one
 * longer than LABEL_MAX_BYTES bytes of UTF-8 is LABEL_TOO_LONG: refused whole, never cut mid-character.
 */
export function checkLabel(field: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw invalid(field, got(CHECK_TEXT.label, value));
  const label = value.trim();
  if (label.includes('\0')) throw invalid(field, CHECK_TEXT.labelNul);
  const bytes = Buffer.byteLength(label, 'utf8');
  if (bytes > LABEL_MAX_BYTES) throw new LightwireError('LABEL_TOO_LONG', { field, bytes, maxBytes: LABEL_MAX_BYTES, label: quoted(label) });
  return label;
}

/** A check's text with the value it refused (cut to a few hundred characters: a hostile value must not grow it). */
function got(text: string, value: unknown): string {
  return `${text} (got ${typeof value === 'number' ? String(value) : quoted(value)})`;
}

/**
 * Why a parameter's value is refused, as every face says it: the parser below, and the HTTP layer for what its
 * schema check finds (core/http/errors.ts). Lists and hashes say their shape; single values repeat what was given.
 */
export function refusal(p: ParamDecl, value: unknown): string {
  switch (p.kind) {
    case 'color':
    case 'colors':
    case 'enumList':
    case 'state':
    case 'states':
    case 'grid':
      return checkText(p);
    default:
      return got(checkText(p), value);
  }
}

/** Why one item of a list parameter is refused (a palette colour, an ignore key). */
export function itemRefusal(p: ParamDecl, value: unknown): string {
  return p.kind === 'enumList' ? got(CHECK_TEXT.enum(p.values ?? []), value) : CHECK_TEXT.color;
}

function checkList(p: ParamDecl, field: string, value: unknown): unknown[] {
  if (!Array.isArray(value) || (p.minItems !== undefined && value.length < p.minItems) || (p.maxItems !== undefined && value.length > p.maxItems)) {
    throw invalid(field, CHECK_TEXT.list(p.minItems, p.maxItems));
  }
  return value;
}

/** A nested Set State hash (Set States, Cycle, scene overrides): values checked, colours kept as given. */
function stateHash(field: string, value: unknown, ctx: ParseContext, withSelector: boolean): SetStateRequest {
  if (!isRecord(value)) throw invalid(field, CHECK_TEXT.object);
  const out: Record<string, unknown> = {};
  if (withSelector) {
    if (typeof value.selector !== 'string') throw new LightwireError('PARAMETER_MISSING', { field: `${field}.selector` });
    out.selector = value.selector;
  }
  for (const p of OPERATIONS.setState.params) {
    const v = value[nameIn(p, ctx.vocabulary)];
    if (v === undefined || v === null) continue;
    const at = `${field}.${nameIn(p, ctx.vocabulary)}`;
    // The colour string is parsed once the state is merged over its defaults; a colour of numbers is checked now.
    out[p.key] = p.kind !== 'color' ? checkValue(p, at, v, ctx) : typeof v === 'string' ? v : colorFromNumbers(v, at);
  }
  return Object.freeze(out) as SetStateRequest;
}

/**
 * Checks a request for an operation: every declared parameter (read by the caller's vocabulary), defaults filled
 * in, colours parsed. Throws PARAMETER_MISSING, PARAMETER_INVALID or COLOR_INVALID naming the first field at fault.
 */
export function parseRequest<N extends OperationName>(name: N, input: unknown, ctx: ParseContext): Checked<N> {
  const prefix = ctx.prefix ?? '';
  if (input === undefined || input === null) input = {};
  if (!isRecord(input)) throw invalid(prefix === '' ? 'body' : prefix.replace(/\.$/, ''), CHECK_TEXT.object);
  const params: readonly ParamDecl[] = OPERATIONS[name].params;
  if (ctx.strict === true) {
    const known = params.map((p) => nameIn(p, ctx.vocabulary));
    for (const key of Object.keys(input)) {
      if (!known.includes(key) && !(ctx.ignore ?? []).includes(key)) throw invalid(`${prefix}${key}`, CHECK_TEXT.unknown([...known, ...(ctx.ignore ?? [])]));
    }
  }
  const out: Record<string, unknown> = {};
  for (const p of params) {
    const field = `${prefix}${nameIn(p, ctx.vocabulary)}`;
    const value = input[nameIn(p, ctx.vocabulary)];
    if (value === undefined || value === null) {
      if (p.required === true) throw new LightwireError('PARAMETER_MISSING', { field });
      if (p.default === 'service') {
        if (ctx.defaultDurationS !== undefined) out[p.key] = ctx.defaultDurationS;
      } else if (p.default !== undefined) out[p.key] = p.default;
      continue;
    }
    out[p.key] = checkValue(p, field, value, ctx);
  }
  RULES[name]?.(out, (p) => `${prefix}${ctx.vocabulary === 'v1' ? p.v1 : p.key}`);
  const checked = Object.freeze(out);
  made.add(checked);
  return checked as Checked<N>;
}

type Named = (p: { readonly v1: string; readonly key: string }) => string;

/** Checks across parameters, after each has passed its own. */
const RULES: Partial<Record<OperationName, (request: Record<string, unknown>, name: Named) => void>> = {
  // The firmware runs Move for cycles x period: at most Set State's longest transition.
  move: (r, name) => {
    const runS = r.cycles === undefined ? 0 : (r.cycles as number) * (r.periodS as number);
    if (runS > DURATION_MAX_S) throw invalid(name({ v1: 'cycles', key: 'cycles' }), `x period must be at most ${DURATION_MAX_S} seconds (got ${runS})`);
  },
  // One of a grid or a rectangle of one colour; the canvas is addressed in whole pixels.
  paint: (r, name) => {
    if ((r.pixels === undefined) === (r.color === undefined)) {
      throw invalid(name({ v1: 'pixels', key: 'pixels' }), 'or color must be given (one of them, not both)');
    }
    for (const key of ['x', 'y', 'width', 'height'] as const) {
      const v = r[key];
      if (v !== undefined && !Number.isInteger(v)) throw invalid(name({ v1: key, key }), got(CHECK_TEXT.integer, v));
    }
  },
  // A theme of the palette file; otherwise the names closest to the one given.
  theme: (r) => {
    const theme = (r.theme as string).toLowerCase().replace(/[\s-]+/g, '_');
    if (!THEME_NAMES.includes(theme)) throw new LightwireError('THEME_UNKNOWN', { theme: r.theme as string, close: closeNames(theme, THEME_NAMES).join(', ') });
    r.theme = theme;
  },
};

/** Up to three names nearest `word` (edit distance, then a shared prefix), for an error that lists them. */
function closeNames(word: string, names: readonly string[]): string[] {
  return names
    .map((n) => ({ n, d: editDistance(word, n) - (n.startsWith(word.slice(0, 3)) ? 1 : 0) }))
    .sort((a, b) => a.d - b.d || (a.n < b.n ? -1 : 1))
    .slice(0, 3)
    .map((x) => x.n);
}

/**
 * A Set State, checked and ready for the planner: the colour parsed and an explicit brightness merged into it
 * (https://api.developer.lifx.com/docs/set-state), the transition filled in.
 */
export function parseStateChange(input: unknown, ctx: ParseContext & { readonly defaultDurationS: number }): CheckedChange {
  return stateChangeOf(parseRequest('setState', input, ctx), ctx.defaultDurationS);
}

/** A checked Set State as the planner's change; `defaultDurationS` when the face that checked it left it out. */
export function stateChangeOf(request: Checked<'setState'>, defaultDurationS: number): CheckedChange {
  const merged = withBrightness(request.color, request.brightness);
  return trustedChange({
    ...(request.power !== undefined ? { power: request.power } : {}),
    ...(merged !== undefined ? { color: merged } : {}),
    ...(request.brightness !== undefined ? { brightness: request.brightness } : {}),
    ...(request.infrared !== undefined ? { infrared: request.infrared } : {}),
    durationS: request.durationS ?? defaultDurationS,
  });
}

/**
 * A change computed by the service from checked parts (a State Delta's result, a scene's stored state, a toggle):
 * within range by construction. Not part of the package's API.
 */
export function trustedChange(change: StateChange): CheckedChange {
  const checked = Object.freeze(change);
  made.add(checked);
  return checked as CheckedChange;
}


// The operation catalogue: every write the light service offers, declared once, the way the message tables
// declare messages and HAP-NodeJS declares characteristics. An entry names the operation, its HTTP method, path
// and scope (https://api.developer.lifx.com/), each parameter (its v1 name, the service's key in user units, its
// kind, range, default, unit and description), the capability it needs and, for firmware effects, what the
// light reports while it runs. Everything else is derived from it: the request parser (requests.ts), the HTTP
// body schemas and OpenAPI document (core/http/schemas.ts), the HTTP-to-service mapping, the Node-RED payload
// table, the dashboard's effect buttons and Homebridge's effect switches. test/control/catalogue.test.ts walks it
// against every face. The renaming operations (labels, groups, locations), Paint Pixels and Paint Theme have no v1
// endpoint: they are served beside /v1 (`api: 'lightwire'`), and Node-RED and the CLI name the renaming ones by
// `naming`.
//
// Pure data: no imports beyond the protocol's limits, the capability type and the declarations of pixels and themes
// (catalogue-paint.ts, kept apart to keep this file short).

import { DEFAULT_DURATION_S, DURATION_MAX_S, type Capabilities } from '../protocol/index.js';
import { pixelOperations } from './catalogue-paint.js';

export { MAX_CANVAS, THEME_NAMES } from './catalogue-paint.js';

/** What a parameter holds; requests.ts has one check (and one text) per kind. */
export type ParamKind =
  /** "on" or "off". */
  | 'power'
  /** A finite number within [min, max]. */
  | 'number'
  | 'boolean'
  /** One of `values`. */
  | 'enum'
  /** A colour string, or (library and Node-RED) numbers {hue, saturation, brightness, kelvin}. */
  | 'color'
  /** A list of colours (minItems..maxItems). */
  | 'colors'
  /** A list of strings, each one of `values`. */
  | 'enumList'
  /** A Set State hash (the parameters of setState). */
  | 'state'
  /** A list of Set State hashes (minItems..maxItems); with `selector` each carries its own selector. */
  | 'states'
  /** Rows of colours, top to bottom (minItems..maxItems rows of as many colours each). */
  | 'grid'
  /** A non-empty string; `values` (when given) are what the operation knows, checked by the operation's own rule. */
  | 'text'
  /** A label (a light's, a group's, a location's): 1 to LABEL_MAX_BYTES bytes of UTF-8, no NUL. */
  | 'label';

/** The unit of a number, as its name says it (seconds, 0-1 fraction, degrees, kelvin, a count). */
export type ParamUnit = 's' | 'fraction' | 'degrees' | 'kelvin' | 'count';

export interface ParamDecl {
  /** The HTTP API v1 name (also Node-RED's): `from_color`, `power_on`. */
  readonly v1: string;
  /** The service's key, units in the name: `fromColor`, `periodS`, `powerOn`. */
  readonly key: string;
  readonly kind: ParamKind;
  readonly description: string;
  readonly required?: boolean;
  /** The value an omitted parameter takes; `'service'`: the service's own default transition (defaultDurationS). */
  readonly default?: number | boolean | string | 'service';
  readonly min?: number;
  readonly max?: number;
  readonly unit?: ParamUnit;
  readonly values?: readonly string[];
  readonly minItems?: number;
  readonly maxItems?: number;
  /** `states` items carry their own `selector` (Set States). */
  readonly selector?: boolean;
}

/** The capability an operation needs: lights without it are left out; none at all is CAPABILITY_MISSING. */
export type Need = keyof Pick<Capabilities, 'multizone' | 'matrix' | 'hev'>;

/**
 * Firmware effects that a light with the capability runs only from a host firmware major version on; lights below it
 * (or whose firmware is not read yet) are incapable lights like any other. SKY needs the matrix capability and
 * firmware 4: matrix lights on firmware 3 reject or ignore it, and the Tile's last firmware is 3.50 (lifx-async,
 * src/lifx/products/quirks.py SKY_EFFECT_MIN_FIRMWARE_MAJOR and supports_sky_effect, 42c9ad2).
 */
export const FIRMWARE_EFFECT_MIN_MAJOR: Readonly<Partial<Record<'MOVE' | 'MORPH' | 'FLAME' | 'SKY', number>>> = Object.freeze({ SKY: 4 });

export interface OperationDecl {
  /** The service's name for it, and the HTTP operationId unless `operationId` says otherwise. */
  readonly name: string;
  /** The HTTP API's operationId where it differs from the service's name (Toggle Power). */
  readonly operationId?: string;
  readonly summary: string;
  readonly method: 'PUT' | 'POST';
  /**
   * Relative to its API's prefix (/v1, or /lightwire for `api: 'lightwire'`), in Fastify's form: `:selector` is the
   * selector segment, `:scene` is `scene_id:<uuid>`.
   */
  readonly path: string;
  readonly scope: 'control';
  /** Not in the cloud's v1 contract: served beside it, at /lightwire (renaming, pixels and themes). */
  readonly api?: 'lightwire';
  /**
   * A renaming operation: what it names (a light's label, its group, its location), the Node-RED payload key that asks
   * for it, and whether it renames a group or location (OLD -> NEW) rather than acting on the selector's lights.
   */
  readonly naming?: {
    readonly kind: 'label' | 'group' | 'location';
    readonly payload: string;
    readonly rename: boolean;
  };
  readonly params: readonly ParamDecl[];
  /** A firmware or device effect: offered as `{effect: name}` in Node-RED and as a button on the dashboard. */
  readonly effect?: {
    /** Node-RED's name for it (`off` for Effects Off), and the dashboard's. */
    readonly name: string;
    /** Shown on the dashboard and after a light's name on a Homebridge switch. */
    readonly title: string;
  };
  readonly needs?: Need;
  /** What the light reports while this firmware effect runs (clouds, sunrise and sunset are all SKY). */
  readonly firmware?: 'MOVE' | 'MORPH' | 'FLAME' | 'SKY';
  /** How the service knows what the light shows before planning: read its state, or not at all. */
  readonly read: 'state' | 'none';
}

const param = <const P extends ParamDecl>(p: P): P => p;

// ---- the limits of the parameters (the wire's fields, https://lan.developer.lifx.com/docs/) ----

/** Waveform `period` and effect `speed` are u32 ms on the wire: at most 4294967.295 s. */
export const MAX_PERIOD_S = 0xffffffff / 1000;
/** Waveform `cycles` is an f32: any finite non-negative value below float32's maximum. */
export const MAX_CYCLES = 3.4e38;
/** SetTileEffect carries at most 16 palette colours. */
export const MAX_PALETTE = 16;
/** SetHevCycle's duration_s is a u32 of whole seconds. */
export const MAX_CLEAN_S = 0xffffffff;
export const MAX_STATES = 50;
export const CYCLE_STATES_MIN = 2;
export const CYCLE_STATES_MAX = 5;
/**
 * A label is 32 bytes of UTF-8 on the wire (SetLabel, SetGroup, SetLocation:
 * https://lan.developer.lifx.com/docs/changing-a-device); a longer one is refused, never cut.
 */
export const LABEL_MAX_BYTES = 32;
/** The properties of a scene's states that Activate Scene can leave unchanged. */
export const SCENE_IGNORE_KEYS = Object.freeze(['power', 'infrared', 'duration', 'intensity', 'hue', 'saturation', 'brightness', 'kelvin'] as const);

// ---- Set State (https://api.developer.lifx.com/docs/set-state) ----

const POWER = param({ v1: 'power', key: 'power', kind: 'power', description: 'Turn the lights on or off.' });
/** A transition or run time in seconds, 0 to 100 years; `extra` says what it is (and its default). */
const durationParam = <const P extends Pick<ParamDecl, 'description'> & Partial<ParamDecl>>(extra: P) =>
  param({ v1: 'duration', key: 'durationS', kind: 'number', min: 0, max: DURATION_MAX_S, unit: 's', ...extra });
const DURATION = durationParam({ default: 'service', description: `How long the change takes. Seconds, 0 to ${DURATION_MAX_S} (100 years).` });

const SET_STATE_PARAMS = [
  POWER,
  param({ v1: 'color', key: 'color', kind: 'color', description: 'The colour to set.' }),
  param({ v1: 'brightness', key: 'brightness', kind: 'number', min: 0, max: 1, unit: 'fraction', description: '0.0 to 1.0; overrides any brightness inside color.' }),
  DURATION,
  param({
    v1: 'infrared',
    key: 'infrared',
    kind: 'number',
    min: 0,
    max: 1,
    unit: 'fraction',
    description: '0.0 to 1.0: the upper limit of the infrared channel (lights with infrared only).',
  }),
] as const;

// ---- effects ----

const POWER_ON = param({ v1: 'power_on', key: 'powerOn', kind: 'boolean', default: true, description: 'Turn on lights that are off.' });
const periodParam = <const D extends number>(defaultS: D, description: string) =>
  param({ v1: 'period', key: 'periodS', kind: 'number', min: 0, max: MAX_PERIOD_S, unit: 's', default: defaultS, description });
const EFFECT_DURATION = durationParam({ description: 'Seconds the effect runs; omitted runs until stopped; 0 stops it.' });

const WAVEFORM_PARAMS = [
  param({ v1: 'color', key: 'color', kind: 'color', required: true, description: 'The colour the effect moves to (required).' }),
  param({ v1: 'from_color', key: 'fromColor', kind: 'color', description: 'The colour to start from (default: the current colour).' }),
  periodParam(1, 'Seconds per cycle.'),
  param({ v1: 'cycles', key: 'cycles', kind: 'number', min: 0, max: MAX_CYCLES, unit: 'count', default: 1, description: 'How many cycles.' }),
  param({ v1: 'persist', key: 'persist', kind: 'boolean', default: false, description: 'true keeps the last colour of the effect; false returns to the previous colour.' }),
  POWER_ON,
] as const;

const SKY_PARAMS = [
  durationParam({ description: 'Seconds the effect runs (sunrise and sunset: how long the sun takes); omitted runs until stopped.' }),
  POWER_ON,
] as const;

const effectPath = (name: string): string => `/lights/:selector/effects/${name}`;

// ---- renaming (https://lan.developer.lifx.com/docs/changing-a-device): served beside /v1 ----

const labelParam = <const V extends string>(v1: V, description: string) =>
  param({ v1, key: v1, kind: 'label', required: true, description: `${description} 1 to ${LABEL_MAX_BYTES} bytes of UTF-8.` });
const RENAME_PARAMS = [labelParam('from', 'The current name.'), labelParam('to', 'The new name.')] as const;

/**
 * Every write, in the order of the HTTP API's documentation. `as const` keeps each entry's parameter list as a
 * tuple, so requests.ts derives the request types from it.
 */
export const OPERATIONS = {
  setState: {
    name: 'setState',
    summary: 'Set State',
    method: 'PUT',
    path: '/lights/:selector/state',
    scope: 'control',
    params: SET_STATE_PARAMS,
    read: 'state',
  },
  setStates: {
    name: 'setStates',
    summary: 'Set States',
    method: 'PUT',
    path: '/lights/states',
    scope: 'control',
    params: [
      param({ v1: 'states', key: 'states', kind: 'states', selector: true, required: true, minItems: 1, maxItems: MAX_STATES, description: `1 to ${MAX_STATES} Set State hashes, each with its own selector.` }),
      param({ v1: 'defaults', key: 'defaults', kind: 'state', description: 'Merged into every state that lacks the field.' }),
    ],
    read: 'state',
  },
  stateDelta: {
    name: 'stateDelta',
    summary: 'State Delta',
    method: 'POST',
    path: '/lights/:selector/state/delta',
    scope: 'control',
    params: [
      param({ ...POWER, description: 'Absolute, as in Set State.' }),
      DURATION,
      param({ v1: 'infrared', key: 'infrared', kind: 'number', unit: 'fraction', description: 'Added to the infrared level (any amount); the result is clipped to 0-1.' }),
      param({ v1: 'hue', key: 'hue', kind: 'number', min: -360, max: 360, unit: 'degrees', description: 'Degrees to rotate the hue; the result wraps.' }),
      param({ v1: 'saturation', key: 'saturation', kind: 'number', unit: 'fraction', description: 'Added (any amount); the result is clipped to 0-1.' }),
      param({ v1: 'brightness', key: 'brightness', kind: 'number', unit: 'fraction', description: 'Added (any amount); the result is clipped to 0-1.' }),
      param({ v1: 'kelvin', key: 'kelvin', kind: 'number', unit: 'kelvin', description: 'Added; the result is clipped to the product\'s kelvin range.' }),
    ],
    read: 'state',
  },
  toggle: {
    name: 'toggle',
    operationId: 'togglePower',
    summary: 'Toggle Power',
    method: 'POST',
    path: '/lights/:selector/toggle',
    scope: 'control',
    params: [durationParam({ default: 'service', description: `How long the power change takes. Seconds, 0 to ${DURATION_MAX_S} (100 years).` })],
    read: 'none',
  },
  pulse: {
    name: 'pulse',
    summary: 'Pulse Effect',
    method: 'POST',
    path: effectPath('pulse'),
    scope: 'control',
    params: WAVEFORM_PARAMS,
    effect: { name: 'pulse', title: 'Pulse' },
    read: 'state',
  },
  breathe: {
    name: 'breathe',
    summary: 'Breathe Effect',
    method: 'POST',
    path: effectPath('breathe'),
    scope: 'control',
    params: [
      ...WAVEFORM_PARAMS,
      param({ v1: 'peak', key: 'peak', kind: 'number', min: 0, max: 1, unit: 'fraction', default: 0.5, description: 'Where in the period the colour peaks.' }),
    ],
    effect: { name: 'breathe', title: 'Breathe' },
    read: 'state',
  },
  move: {
    name: 'move',
    summary: 'Move Effect (multizone)',
    method: 'POST',
    path: effectPath('move'),
    scope: 'control',
    params: [
      param({ v1: 'direction', key: 'direction', kind: 'enum', values: ['forward', 'backward'], default: 'forward', description: 'Which way the pattern moves: forward is away from the controller.' }),
      periodParam(1, 'Seconds per cycle.'),
      param({ v1: 'cycles', key: 'cycles', kind: 'number', min: 0, max: MAX_CYCLES, unit: 'count', description: 'Times the pattern moves across; omitted runs until stopped; 0 stops it.' }),
      POWER_ON,
    ],
    effect: { name: 'move', title: 'Move' },
    needs: 'multizone',
    firmware: 'MOVE',
    read: 'state',
  },
  morph: {
    name: 'morph',
    summary: 'Morph Effect (matrix)',
    method: 'POST',
    path: effectPath('morph'),
    scope: 'control',
    params: [
      periodParam(5, 'Seconds; lower is faster.'),
      EFFECT_DURATION,
      param({ v1: 'palette', key: 'palette', kind: 'colors', minItems: 1, maxItems: MAX_PALETTE, description: `1 to ${MAX_PALETTE} colours (default: seven colours across the spectrum).` }),
      POWER_ON,
    ],
    effect: { name: 'morph', title: 'Morph' },
    needs: 'matrix',
    firmware: 'MORPH',
    read: 'state',
  },
  flame: {
    name: 'flame',
    summary: 'Flame Effect (matrix)',
    method: 'POST',
    path: effectPath('flame'),
    scope: 'control',
    params: [periodParam(5, 'Seconds; lower is faster.'), EFFECT_DURATION, POWER_ON],
    effect: { name: 'flame', title: 'Flame' },
    needs: 'matrix',
    firmware: 'FLAME',
    read: 'state',
  },
  clouds: {
    name: 'clouds',
    summary: 'Clouds Effect (matrix)',
    method: 'POST',
    path: effectPath('clouds'),
    scope: 'control',
    params: SKY_PARAMS,
    effect: { name: 'clouds', title: 'Clouds' },
    needs: 'matrix',
    firmware: 'SKY',
    read: 'state',
  },
  sunrise: {
    name: 'sunrise',
    summary: 'Sunrise Effect (matrix)',
    method: 'POST',
    path: effectPath('sunrise'),
    scope: 'control',
    params: SKY_PARAMS,
    effect: { name: 'sunrise', title: 'Sunrise' },
    needs: 'matrix',
    firmware: 'SKY',
    read: 'state',
  },
  sunset: {
    name: 'sunset',
    summary: 'Sunset Effect (matrix)',
    method: 'POST',
    path: effectPath('sunset'),
    scope: 'control',
    params: SKY_PARAMS,
    effect: { name: 'sunset', title: 'Sunset' },
    needs: 'matrix',
    firmware: 'SKY',
    read: 'state',
  },
  effectsOff: {
    name: 'effectsOff',
    summary: 'Effects Off',
    method: 'POST',
    path: effectPath('off'),
    scope: 'control',
    params: [param({ v1: 'power_off', key: 'powerOff', kind: 'boolean', default: false, description: 'Also turn the lights off.' })],
    effect: { name: 'off', title: 'Stop effects' },
    read: 'state',
  },
  clean: {
    name: 'clean',
    summary: 'Clean (HEV)',
    method: 'POST',
    path: '/lights/:selector/clean',
    scope: 'control',
    params: [
      param({ v1: 'stop', key: 'stop', kind: 'boolean', default: false, description: 'true stops a running cleaning cycle.' }),
      param({ v1: 'duration', key: 'durationS', kind: 'number', min: 0, max: MAX_CLEAN_S, unit: 's', description: 'Seconds the cycle runs (default: the device\'s own setting); only when starting.' }),
    ],
    effect: { name: 'clean', title: 'Clean' },
    needs: 'hev',
    read: 'none',
  },
  cycle: {
    name: 'cycle',
    summary: 'Cycle',
    method: 'POST',
    path: '/lights/:selector/cycle',
    scope: 'control',
    params: [
      param({ v1: 'states', key: 'states', kind: 'states', required: true, minItems: CYCLE_STATES_MIN, maxItems: CYCLE_STATES_MAX, description: `${CYCLE_STATES_MIN} to ${CYCLE_STATES_MAX} states to cycle through.` }),
      param({ v1: 'defaults', key: 'defaults', kind: 'state', description: 'Merged into every state that lacks the field.' }),
      param({ v1: 'direction', key: 'direction', kind: 'enum', values: ['forward', 'backward'], default: 'forward', description: 'Which way through the list.' }),
    ],
    read: 'state',
  },
  activateScene: {
    name: 'activateScene',
    summary: 'Activate Scene (the path segment is scene_id:<uuid>)',
    method: 'PUT',
    path: '/scenes/:scene/activate',
    scope: 'control',
    params: [
      durationParam({ description: `Transition time; overrides the durations stored in the scene. Seconds, 0 to ${DURATION_MAX_S} (100 years).` }),
      param({ v1: 'ignore', key: 'ignore', kind: 'enumList', values: SCENE_IGNORE_KEYS, description: 'Properties of the scene to leave unchanged.' }),
      param({ v1: 'overrides', key: 'overrides', kind: 'state', description: 'A Set State hash applied to every light of the scene.' }),
    ],
    read: 'state',
  },
  setLabel: {
    name: 'setLabel',
    summary: 'Set Label (one light)',
    method: 'PUT',
    path: '/lights/:selector/label',
    scope: 'control',
    api: 'lightwire',
    params: [labelParam('label', 'The light\'s new label.')],
    naming: { kind: 'label', payload: 'label', rename: false },
    read: 'none',
  },
  setGroup: {
    name: 'setGroup',
    summary: 'Move lights to a group by name (made when no group has it)',
    method: 'PUT',
    path: '/lights/:selector/group',
    scope: 'control',
    api: 'lightwire',
    params: [labelParam('group', 'The group\'s name.')],
    naming: { kind: 'group', payload: 'group', rename: false },
    read: 'none',
  },
  setLocation: {
    name: 'setLocation',
    summary: 'Move lights to a location by name (made when no location has it)',
    method: 'PUT',
    path: '/lights/:selector/location',
    scope: 'control',
    api: 'lightwire',
    params: [labelParam('location', 'The location\'s name.')],
    naming: { kind: 'location', payload: 'location', rename: false },
    read: 'none',
  },
  renameGroup: {
    name: 'renameGroup',
    summary: 'Rename a group (every online member)',
    method: 'PUT',
    path: '/groups/rename',
    scope: 'control',
    api: 'lightwire',
    params: RENAME_PARAMS,
    naming: { kind: 'group', payload: 'rename_group', rename: true },
    read: 'none',
  },
  renameLocation: {
    name: 'renameLocation',
    summary: 'Rename a location (every online member)',
    method: 'PUT',
    path: '/locations/rename',
    scope: 'control',
    api: 'lightwire',
    params: RENAME_PARAMS,
    naming: { kind: 'location', payload: 'rename_location', rename: true },
    read: 'none',
  },
  // Pixels and themes (catalogue-paint.ts), beside /v1.
  ...pixelOperations(DURATION, POWER_ON),
} as const satisfies Readonly<Record<string, OperationDecl>>;

export type OperationName = keyof typeof OPERATIONS;
/** The renaming operations: a light's label, its group or location, a group or location renamed. */
export type NamingOperationName = { [N in OperationName]: (typeof OPERATIONS)[N] extends { readonly naming: object } ? N : never }[OperationName];
/** Renaming a group or a location (OLD -> NEW): no selector, the name says which. */
export type RenameOperationName = { [N in OperationName]: (typeof OPERATIONS)[N] extends { readonly naming: { readonly rename: true } } ? N : never }[OperationName];
/** The operations that act on a selector (all but Set States, Activate Scene and the renames of groups and locations). */
export type SelectorOperationName = Exclude<OperationName, 'setStates' | 'activateScene' | RenameOperationName>;
/** The effects: firmware effects, waveforms, Effects Off and Clean. */
export type EffectOperationName = { [N in OperationName]: (typeof OPERATIONS)[N] extends { readonly effect: object } ? N : never }[OperationName];

/** The firmware effects (Move, Morph, Flame, Clouds, Sunrise, Sunset): they run until stopped, and the light says which runs. */
export type FirmwareEffectName = { [N in OperationName]: (typeof OPERATIONS)[N] extends { readonly firmware: string } ? N : never }[OperationName];
export const FIRMWARE_EFFECTS: readonly FirmwareEffectName[] = Object.freeze(
  (Object.keys(OPERATIONS) as OperationName[]).filter((n): n is FirmwareEffectName => 'firmware' in OPERATIONS[n]),
);

/** Every operation, in declaration order. */
export const OPERATION_LIST: readonly OperationDecl[] = Object.freeze(Object.values(OPERATIONS));
/** The operations of the cloud's v1 contract (everything but renaming, pixels and themes, served beside it). */
export const V1_OPERATIONS: readonly OperationDecl[] = Object.freeze(OPERATION_LIST.filter((o) => o.api === undefined));
/** The renaming operations, in declaration order. */
export const NAMING_OPERATIONS: readonly (OperationDecl & { readonly naming: NonNullable<OperationDecl['naming']> })[] = Object.freeze(
  OPERATION_LIST.filter((o): o is OperationDecl & { naming: NonNullable<OperationDecl['naming']> } => o.naming !== undefined),
);
/** The effects, in declaration order. */
export const EFFECT_OPERATIONS: readonly (OperationDecl & { readonly effect: NonNullable<OperationDecl['effect']> })[] = Object.freeze(
  OPERATION_LIST.filter((o): o is OperationDecl & { effect: NonNullable<OperationDecl['effect']> } => o.effect !== undefined),
);

/** A parameter's default as data (the `'service'` default is DEFAULT_DURATION_S unless the service says otherwise). */
export function staticDefault(p: ParamDecl): number | boolean | string | undefined {
  return p.default === 'service' ? DEFAULT_DURATION_S : p.default;
}

// The v1 endpoints as data (LIFX HTTP API docs: https://api.developer.lifx.com/): method, path, scope and the
// JSON Schemas of body, query and response. The plugin validates requests and serialises responses with these
// objects and openapi.ts prints the same objects, so the document cannot drift from what the server accepts (one
// source per fact). Ranges come from the service's own constants; the service checks them again, so both agree by
// construction.
//
// Every request body schema allows additional properties: unknown parameters become `warnings`
// (https://api.developer.lifx.com/docs/errors).

import {
  COLOR_RANGES,
  CYCLE_STATES_MAX,
  CYCLE_STATES_MIN,
  DEFAULT_DURATION_S,
  DURATION_MAX_S,
  EFFECT_DEFAULTS,
  MAX_SELECTORS,
  MAX_STATES,
  SCENE_IGNORE_KEYS,
} from '../index.js';
import type { JsonSchema } from './json-schema.js';

/** Token scopes (auth.ts): `read` lists lights and scenes and validates colours; `control` may do everything. */
export type Scope = 'read' | 'control';

// ---- building blocks ----

const fraction = (description: string): JsonSchema => ({ type: 'number', minimum: 0, maximum: 1, description });

const duration = (description: string, withDefault = true): JsonSchema => ({
  type: 'number',
  minimum: 0,
  maximum: DURATION_MAX_S,
  description: `${description} Seconds, 0 to ${DURATION_MAX_S} (100 years).`,
  ...(withDefault ? { default: DEFAULT_DURATION_S } : {}),
});

const colorString = (description: string): JsonSchema => ({
  type: 'string',
  description: `${description} A colour string: names (white, red, orange, yellow, cyan, green, blue, purple, pink), ` +
    `hue:0-360, saturation:0-1, brightness:0-1, kelvin:${COLOR_RANGES.kelvin.min}-${COLOR_RANGES.kelvin.max}, #RRGGBB, rgb:R,G,B; combine with spaces.`,
  examples: ['blue saturation:0.5'],
});

const power: JsonSchema = { type: 'string', enum: ['on', 'off'] };
const bool = (description: string, def?: boolean): JsonSchema => ({
  type: 'boolean',
  description,
  ...(def === undefined ? {} : { default: def }),
});

/** `fast` on every write and its legacy alias `async` (LIFX's own kit), which raises no warning. */
const WRITE_FLAGS: Readonly<Record<string, JsonSchema>> = {
  fast: bool('Send end-state messages only, do not wait for the lights; the answer is 202 with no body.', false),
  async: bool('Legacy alias of fast (LIFX\'s own clients send it).', false),
};

/** The Set State hash without `fast`: shared by Set States, Cycle and scene overrides. */
const SET_STATE_FIELDS: Readonly<Record<string, JsonSchema>> = {
  power: { ...power, description: 'Turn the lights on or off.' },
  color: colorString('The colour to set.'),
  brightness: fraction('0.0 to 1.0; overrides any brightness inside color.'),
  duration: duration('How long the change takes.'),
  infrared: fraction('0.0 to 1.0: the upper limit of the infrared channel (lights with infrared only).'),
};

const openObject = (properties: Readonly<Record<string, JsonSchema>>, required: readonly string[] = [], description?: string): JsonSchema => ({
  type: 'object',
  properties,
  ...(required.length > 0 ? { required } : {}),
  additionalProperties: true,
  ...(description ? { description } : {}),
});

const setStateHash = (description: string): JsonSchema => openObject(SET_STATE_FIELDS, [], description);

// ---- request bodies ----

export const SET_STATE_BODY = openObject({ ...SET_STATE_FIELDS, ...WRITE_FLAGS });

export const SET_STATES_BODY = openObject(
  {
    states: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_STATES,
      description: `1 to ${MAX_STATES} Set State hashes, each with its own selector.`,
      items: openObject({ selector: { type: 'string', description: 'Which lights this state is for.' }, ...SET_STATE_FIELDS }, ['selector']),
    },
    defaults: setStateHash('Merged into every state that lacks the field.'),
    ...WRITE_FLAGS,
  },
  ['states'],
);

export const STATE_DELTA_BODY = openObject({
  power: { ...power, description: 'Absolute, as in Set State.' },
  duration: duration('How long the change takes.'),
  infrared: { type: 'number', description: 'Added to the infrared level (any amount); the result is clipped to 0-1.' },
  hue: { type: 'number', minimum: -360, maximum: 360, description: 'Degrees to rotate the hue; the result wraps.' },
  saturation: { type: 'number', description: 'Added (any amount); the result is clipped to 0-1.' },
  brightness: { type: 'number', description: 'Added (any amount); the result is clipped to 0-1.' },
  kelvin: { type: 'number', description: 'Added; the result is clipped to the product\'s kelvin range.' },
  ...WRITE_FLAGS,
});

export const TOGGLE_BODY = openObject({ duration: duration('How long the power change takes.'), ...WRITE_FLAGS });

const waveformFields = (peak: boolean): Record<string, JsonSchema> => ({
  color: colorString('The colour the effect moves to (required).'),
  from_color: colorString('The colour to start from (default: the current colour).'),
  period: { type: 'number', minimum: 0, default: EFFECT_DEFAULTS.waveformPeriodS, description: 'Seconds per cycle.' },
  cycles: { type: 'number', minimum: 0, default: EFFECT_DEFAULTS.waveformCycles, description: 'How many cycles.' },
  persist: bool('true keeps the last colour of the effect; false returns to the previous colour.', EFFECT_DEFAULTS.persist),
  power_on: bool('Turn on lights that are off.', EFFECT_DEFAULTS.powerOn),
  ...(peak
    ? { peak: { type: 'number', minimum: 0, maximum: 1, default: EFFECT_DEFAULTS.peak, description: 'Where in the period the colour peaks.' } }
    : {}),
  ...WRITE_FLAGS,
});

export const BREATHE_BODY = openObject(waveformFields(true), ['color']);
export const PULSE_BODY = openObject(waveformFields(false), ['color']);

export const MOVE_BODY = openObject({
  direction: { type: 'string', enum: ['forward', 'backward'], default: EFFECT_DEFAULTS.direction },
  period: { type: 'number', minimum: 0, default: EFFECT_DEFAULTS.movePeriodS, description: 'Seconds per cycle.' },
  cycles: { type: 'number', minimum: 0, description: 'Times the pattern moves across; omitted runs until stopped; 0 stops it.' },
  power_on: bool('Turn on lights that are off.', EFFECT_DEFAULTS.powerOn),
  ...WRITE_FLAGS,
});

const effectDuration: JsonSchema = {
  type: 'number',
  minimum: 0,
  maximum: DURATION_MAX_S,
  description: 'Seconds the effect runs; omitted runs until stopped; 0 stops it.',
};

export const MORPH_BODY = openObject({
  period: { type: 'number', minimum: 0, default: EFFECT_DEFAULTS.morphPeriodS, description: 'Seconds; lower is faster.' },
  duration: effectDuration,
  palette: { type: 'array', items: colorString('One palette colour.'), description: 'Colour strings (default: seven colours across the spectrum).' },
  power_on: bool('Turn on lights that are off.', EFFECT_DEFAULTS.powerOn),
  ...WRITE_FLAGS,
});

export const FLAME_BODY = openObject({
  period: { type: 'number', minimum: 0, default: EFFECT_DEFAULTS.flamePeriodS, description: 'Seconds; lower is faster.' },
  duration: effectDuration,
  power_on: bool('Turn on lights that are off.', EFFECT_DEFAULTS.powerOn),
  ...WRITE_FLAGS,
});

export const SKY_BODY = openObject({
  duration: { ...effectDuration, description: 'Seconds the effect runs (sunrise and sunset: how long the sun takes); omitted runs until stopped.' },
  power_on: bool('Turn on lights that are off.', EFFECT_DEFAULTS.powerOn),
  ...WRITE_FLAGS,
});

export const EFFECTS_OFF_BODY = openObject({
  power_off: bool('Also turn the lights off.', EFFECT_DEFAULTS.powerOff),
  ...WRITE_FLAGS,
});

export const CLEAN_BODY = openObject({
  stop: bool('true stops a running cleaning cycle.', EFFECT_DEFAULTS.stop),
  duration: { type: 'number', minimum: 0, description: 'Seconds the cycle runs (default: the device\'s own setting); only when starting.' },
  ...WRITE_FLAGS,
});

export const CYCLE_BODY = openObject(
  {
    states: {
      type: 'array',
      minItems: CYCLE_STATES_MIN,
      maxItems: CYCLE_STATES_MAX,
      items: setStateHash('One Set State hash.'),
      description: `${CYCLE_STATES_MIN} to ${CYCLE_STATES_MAX} states to cycle through.`,
    },
    defaults: setStateHash('Merged into every state that lacks the field.'),
    direction: { type: 'string', enum: ['forward', 'backward'], default: 'forward' },
    ...WRITE_FLAGS,
  },
  ['states'],
);

export const ACTIVATE_SCENE_BODY = openObject({
  duration: duration('Transition time; overrides the durations stored in the scene.', false),
  ignore: {
    type: 'array',
    items: { type: 'string', enum: [...SCENE_IGNORE_KEYS] },
    description: 'Properties of the scene to leave unchanged.',
  },
  overrides: setStateHash('A Set State hash applied to every light of the scene.'),
  ...WRITE_FLAGS,
});

export const VALIDATE_COLOR_QUERY = openObject({ string: { type: 'string', description: 'The colour string to check.' } }, ['string']);

// ---- responses ----

export const LIGHT_RESULT: JsonSchema = {
  type: 'object',
  required: ['id', 'label', 'status'],
  properties: {
    id: { type: 'string' },
    label: { type: 'string' },
    status: { type: 'string', enum: ['ok', 'timed_out', 'offline'] },
    power: { type: 'string', enum: ['on', 'off'], description: 'Toggle Power only: the light\'s new power.' },
  },
};

export const WARNING: JsonSchema = {
  type: 'object',
  required: ['warning'],
  properties: {
    warning: { type: 'string', examples: ['Unknown params'] },
    unknown_params: { type: 'object', additionalProperties: true, description: 'The parameters that were not used, in their nested position.' },
  },
};

const warnings: JsonSchema = { type: 'array', items: WARNING };

export const RESULTS_RESPONSE: JsonSchema = {
  type: 'object',
  required: ['results'],
  properties: { results: { type: 'array', items: LIGHT_RESULT }, warnings },
};

const operationEcho: JsonSchema = {
  type: 'object',
  description: 'The state that was executed: the item merged over defaults, including its selector.',
  properties: { selector: { type: 'string' }, ...SET_STATE_FIELDS },
};

export const SET_STATES_RESPONSE: JsonSchema = {
  type: 'object',
  required: ['results'],
  properties: {
    results: {
      type: 'array',
      items: {
        type: 'object',
        required: ['operation'],
        properties: {
          operation: operationEcho,
          results: { type: 'array', items: LIGHT_RESULT },
          error: { type: 'string', description: '"not found" when the selector matched no light.' },
        },
      },
    },
    warnings,
  },
};

const groupRef: JsonSchema = { type: 'object', required: ['id', 'name'], properties: { id: { type: 'string' }, name: { type: 'string' } } };

export const LIGHT: JsonSchema = {
  type: 'object',
  required: ['id', 'uuid', 'label', 'connected', 'power', 'color', 'brightness', 'effect', 'group', 'location', 'product', 'last_seen', 'seconds_since_seen'],
  properties: {
    id: { type: 'string', description: '12 lowercase hex digits: the serial.' },
    uuid: { type: 'string' },
    label: { type: 'string' },
    connected: { type: 'boolean' },
    power: power,
    color: {
      type: 'object',
      required: ['hue', 'saturation', 'kelvin'],
      properties: { hue: { type: 'number' }, saturation: { type: 'number' }, kelvin: { type: 'integer' } },
    },
    infrared: { type: 'number', description: 'Lights with infrared only.' },
    brightness: { type: 'number' },
    zones: {
      type: 'object',
      description: 'Multizone lights only.',
      required: ['count', 'zones'],
      properties: {
        count: { type: 'integer' },
        zones: {
          type: 'array',
          items: {
            type: 'object',
            required: ['brightness', 'hue', 'kelvin', 'saturation', 'zone'],
            properties: {
              brightness: { type: 'number' },
              hue: { type: 'number' },
              kelvin: { type: 'integer' },
              saturation: { type: 'number' },
              zone: { type: 'integer' },
            },
          },
        },
      },
    },
    effect: { type: 'string' },
    group: groupRef,
    location: groupRef,
    product: {
      type: 'object',
      required: ['name', 'identifier', 'company', 'vendor_id', 'product_id', 'capabilities'],
      properties: {
        name: { type: 'string' },
        identifier: { type: 'string' },
        company: { type: 'string' },
        vendor_id: { type: 'integer' },
        product_id: { type: 'integer' },
        capabilities: {
          type: 'object',
          required: ['has_color', 'has_variable_color_temp', 'has_ir', 'has_hev', 'has_chain', 'has_matrix', 'has_multizone', 'min_kelvin', 'max_kelvin'],
          properties: {
            has_color: { type: 'boolean' },
            has_variable_color_temp: { type: 'boolean' },
            has_ir: { type: 'boolean' },
            has_hev: { type: 'boolean' },
            has_chain: { type: 'boolean' },
            has_matrix: { type: 'boolean' },
            has_multizone: { type: 'boolean' },
            min_kelvin: { type: 'integer' },
            max_kelvin: { type: 'integer' },
          },
        },
      },
    },
    last_seen: { type: 'string', description: 'ISO 8601, UTC.' },
    seconds_since_seen: { type: 'number' },
  },
};

export const LIGHTS_RESPONSE: JsonSchema = { type: 'array', items: LIGHT };

export const SCENE: JsonSchema = {
  type: 'object',
  required: ['uuid', 'name', 'account', 'states', 'created_at', 'updated_at'],
  properties: {
    uuid: { type: 'string' },
    name: { type: 'string' },
    account: { type: 'object', required: ['uuid'], properties: { uuid: { type: 'string' } } },
    states: {
      type: 'array',
      items: {
        type: 'object',
        required: ['selector'],
        properties: {
          selector: { type: 'string' },
          power: power,
          brightness: { type: 'number' },
          color: {
            type: 'object',
            properties: { hue: { type: 'number' }, saturation: { type: 'number' }, kelvin: { type: 'integer' }, brightness: { type: 'number' } },
          },
          infrared: { type: 'number' },
          duration: { type: 'number' },
        },
      },
    },
    created_at: { type: 'integer', description: 'Unix seconds.' },
    updated_at: { type: 'integer', description: 'Unix seconds.' },
  },
};

export const SCENES_RESPONSE: JsonSchema = { type: 'array', items: SCENE };

const nullableNumber: JsonSchema = { type: ['number', 'null'] };
export const VALIDATED_COLOR: JsonSchema = {
  type: 'object',
  required: ['hue', 'saturation', 'brightness', 'kelvin'],
  properties: { hue: nullableNumber, saturation: nullableNumber, brightness: nullableNumber, kelvin: nullableNumber },
};

export const SELECTOR_LIST_RESPONSE: JsonSchema = {
  type: 'array',
  items: { type: 'object', required: ['selector', 'label'], properties: { selector: { type: 'string' }, label: { type: 'string' } } },
};

/** Every error answer, plus `code`: the Lightwire error code, stable for programs to test. */
export const ERROR_RESPONSE: JsonSchema = {
  type: 'object',
  required: ['error', 'errors', 'code'],
  properties: {
    error: { type: 'string' },
    errors: {
      type: 'array',
      items: { type: 'object', required: ['field', 'message'], properties: { field: { type: 'string' }, message: { type: 'array', items: { type: 'string' } } } },
    },
    code: { type: 'string' },
  },
};

// ---- the endpoint table ----

export type OperationId =
  | 'listLights'
  | 'setState'
  | 'setStates'
  | 'stateDelta'
  | 'togglePower'
  | 'breathe'
  | 'pulse'
  | 'move'
  | 'morph'
  | 'flame'
  | 'clouds'
  | 'sunrise'
  | 'sunset'
  | 'effectsOff'
  | 'clean'
  | 'cycle'
  | 'listScenes'
  | 'activateScene'
  | 'validateColor'
  | 'listDeviceSelectors'
  | 'listSceneSelectors';

export interface Endpoint {
  readonly id: OperationId;
  readonly method: 'GET' | 'PUT' | 'POST';
  /** Fastify's form, relative to /v1: `:selector` is the selector path segment, `:scene` is `scene_id:<uuid>`. */
  readonly path: string;
  readonly summary: string;
  readonly scope: Scope;
  readonly body?: JsonSchema;
  readonly query?: JsonSchema;
  /** 200 for reads, 207 for writes; writes also answer 202 with no body in fast mode. */
  readonly status: 200 | 207;
  readonly response: JsonSchema;
}

const write = (id: OperationId, method: 'PUT' | 'POST', path: string, summary: string, body: JsonSchema, response = RESULTS_RESPONSE): Endpoint => ({
  id,
  method,
  path,
  summary,
  scope: 'control',
  body,
  status: 207,
  response,
});

export const ENDPOINTS: readonly Endpoint[] = Object.freeze([
  { id: 'listLights', method: 'GET', path: '/lights/:selector', summary: 'List Lights', scope: 'read', status: 200, response: LIGHTS_RESPONSE },
  write('setState', 'PUT', '/lights/:selector/state', 'Set State', SET_STATE_BODY),
  write('setStates', 'PUT', '/lights/states', 'Set States', SET_STATES_BODY, SET_STATES_RESPONSE),
  write('stateDelta', 'POST', '/lights/:selector/state/delta', 'State Delta', STATE_DELTA_BODY),
  write('togglePower', 'POST', '/lights/:selector/toggle', 'Toggle Power', TOGGLE_BODY),
  write('breathe', 'POST', '/lights/:selector/effects/breathe', 'Breathe Effect', BREATHE_BODY),
  write('pulse', 'POST', '/lights/:selector/effects/pulse', 'Pulse Effect', PULSE_BODY),
  write('move', 'POST', '/lights/:selector/effects/move', 'Move Effect (multizone)', MOVE_BODY),
  write('morph', 'POST', '/lights/:selector/effects/morph', 'Morph Effect (matrix)', MORPH_BODY),
  write('flame', 'POST', '/lights/:selector/effects/flame', 'Flame Effect (matrix)', FLAME_BODY),
  write('clouds', 'POST', '/lights/:selector/effects/clouds', 'Clouds Effect (matrix)', SKY_BODY),
  write('sunrise', 'POST', '/lights/:selector/effects/sunrise', 'Sunrise Effect (matrix)', SKY_BODY),
  write('sunset', 'POST', '/lights/:selector/effects/sunset', 'Sunset Effect (matrix)', SKY_BODY),
  write('effectsOff', 'POST', '/lights/:selector/effects/off', 'Effects Off', EFFECTS_OFF_BODY),
  write('clean', 'POST', '/lights/:selector/clean', 'Clean (HEV)', CLEAN_BODY),
  write('cycle', 'POST', '/lights/:selector/cycle', 'Cycle', CYCLE_BODY),
  { id: 'listScenes', method: 'GET', path: '/scenes', summary: 'List Scenes', scope: 'read', status: 200, response: SCENES_RESPONSE },
  write('activateScene', 'PUT', '/scenes/:scene/activate', 'Activate Scene (the path segment is scene_id:<uuid>)', ACTIVATE_SCENE_BODY),
  { id: 'validateColor', method: 'GET', path: '/color', summary: 'Validate Color', scope: 'read', query: VALIDATE_COLOR_QUERY, status: 200, response: VALIDATED_COLOR },
  { id: 'listDeviceSelectors', method: 'GET', path: '/selectors/devices', summary: 'Selectors of every light (Power Automate)', scope: 'read', status: 200, response: SELECTOR_LIST_RESPONSE },
  { id: 'listSceneSelectors', method: 'GET', path: '/selectors/scenes', summary: 'Selectors of every scene (Power Automate)', scope: 'read', status: 200, response: SELECTOR_LIST_RESPONSE },
] satisfies Endpoint[]);

/** Endpoints the v1 API removed (deprecated during v1beta1): they answer 410 and name what replaced them. */
export const REMOVED_ENDPOINTS: readonly { readonly method: 'PUT'; readonly path: string; readonly replacement: string }[] = Object.freeze([
  { method: 'PUT', path: '/lights/:selector/color', replacement: 'Set State (PUT /v1/lights/:selector/state with color)' },
  { method: 'PUT', path: '/lights/:selector/power', replacement: 'Set State (PUT /v1/lights/:selector/state with power)' },
]);

/** The selector path segment (https://api.developer.lifx.com/docs/selectors). */
export const SELECTOR_PARAM: JsonSchema = {
  type: 'string',
  description: `A selector: all, label:x, id:d073d5000001, group:x, group_id:x, location:x, location_id:x, scene_id:x, ` +
    `:random on the set types, |zones; up to ${MAX_SELECTORS} joined with commas. Percent-encode it as one path segment.`,
};

export const SCENE_PARAM: JsonSchema = {
  type: 'string',
  pattern: '^scene_id:.+$',
  description: 'Literally scene_id: followed by the scene\'s uuid.',
};

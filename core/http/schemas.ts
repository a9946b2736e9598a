// The v1 endpoints as data (LIFX HTTP API docs: https://api.developer.lifx.com/): method, path, scope and the
// JSON Schemas of body, query and response. The writes and their request bodies are derived from the operation
// catalogue (core/control/catalogue.ts), which declares every parameter once; the reads are declared here. The
// plugin validates requests and serialises responses with these objects and openapi.ts prints the same objects, so
// the document cannot drift from what the server accepts, nor from what the service checks (one source per fact).
//
// Every request body schema allows additional properties: unknown parameters become `warnings`
// (https://api.developer.lifx.com/docs/errors).

import {
  COLOR_RANGES,
  MAX_SELECTORS,
  NAMING_OPERATIONS,
  OPERATIONS,
  staticDefault,
  type OperationDecl,
  type OperationName,
  type ParamDecl,
} from '../index.js';
import type { JsonSchema } from './json-schema.js';

/** Token scopes (auth.ts): `read` lists lights and scenes and validates colours; `control` may do everything. */
export type Scope = 'read' | 'control';

// ---- request bodies, from the catalogue ----

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

const openObject = (properties: Readonly<Record<string, JsonSchema>>, required: readonly string[] = [], description?: string): JsonSchema => ({
  type: 'object',
  properties,
  ...(required.length > 0 ? { required } : {}),
  additionalProperties: true,
  ...(description ? { description } : {}),
});

/** The schema of one declared parameter, as HTTP carries it (colours are strings there). */
export function paramSchema(p: ParamDecl): JsonSchema {
  const def = p.default === undefined ? {} : { default: staticDefault(p) };
  switch (p.kind) {
    case 'power':
      return { ...power, description: p.description };
    case 'boolean':
      return { type: 'boolean', description: p.description, ...def };
    case 'number':
      return {
        type: 'number',
        ...(p.min !== undefined ? { minimum: p.min } : {}),
        ...(p.max !== undefined ? { maximum: p.max } : {}),
        ...def,
        description: p.description,
      };
    case 'enum':
      return { type: 'string', enum: [...(p.values ?? [])], ...def, description: p.description };
    case 'color':
      return colorString(p.description);
    case 'colors':
      return { type: 'array', items: colorString('One palette colour.'), ...listBounds(p), description: p.description };
    case 'enumList':
      return { type: 'array', items: { type: 'string', enum: [...(p.values ?? [])] }, description: p.description };
    case 'state':
      return setStateHash(p.description);
    // Its length is counted in bytes of UTF-8, which a schema cannot: the service's parser checks it (LABEL_TOO_LONG).
    case 'label':
      return { type: 'string', description: p.description };
    case 'states':
      return {
        type: 'array',
        ...listBounds(p),
        description: p.description,
        items: p.selector === true
          ? openObject({ selector: { type: 'string', description: 'Which lights this state is for.' }, ...SET_STATE_FIELDS }, ['selector'])
          : setStateHash('One Set State hash.'),
      };
    case 'grid':
      return {
        type: 'array',
        ...listBounds(p),
        description: p.description,
        items: { type: 'array', minItems: 1, ...(p.maxItems !== undefined ? { maxItems: p.maxItems } : {}), items: colorString('One pixel.') },
      };
    case 'text':
      return { type: 'string', minLength: 1, description: p.description, ...(p.values !== undefined ? { examples: [...p.values.slice(0, 3)] } : {}) };
  }
}

const listBounds = (p: ParamDecl): JsonSchema => ({
  ...(p.minItems !== undefined ? { minItems: p.minItems } : {}),
  ...(p.maxItems !== undefined ? { maxItems: p.maxItems } : {}),
});

/** The Set State hash without `fast`: shared by Set States, Cycle and scene overrides. */
const SET_STATE_FIELDS: Readonly<Record<string, JsonSchema>> = Object.fromEntries(
  OPERATIONS.setState.params.map((p) => [p.v1, paramSchema(p)]),
);

function setStateHash(description: string): JsonSchema {
  return openObject(SET_STATE_FIELDS, [], description);
}

/** An operation's request body: its declared parameters, plus `fast` and `async` (every write but renaming, always confirmed). */
export function bodyOf(operation: OperationDecl): JsonSchema {
  const params: readonly ParamDecl[] = operation.params;
  return openObject(
    { ...Object.fromEntries(params.map((p) => [p.v1, paramSchema(p)])), ...(operation.naming === undefined ? WRITE_FLAGS : {}) },
    params.filter((p) => p.required === true).map((p) => p.v1),
  );
}

/**
 * The declared parameter at a field of an operation's body (`states[0].brightness`, `palette[2]`), and whether the
 * field is one item of a list parameter: the HTTP layer says a schema failure there as the service's parser does.
 */
export function paramAt(operation: OperationName, field: string): { readonly param: ParamDecl; readonly item: boolean } | undefined {
  const tokens = [...field.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((m) => m[1] ?? Number(m[2]));
  let params: readonly ParamDecl[] = OPERATIONS[operation].params;
  let found: ParamDecl | undefined;
  let item = false;
  let row = false;
  for (const token of tokens) {
    if (typeof token === 'number') {
      if (found === undefined || item) return undefined;
      // A grid's pixel is two indices deep (`pixels[2][5]`): a row (said as the grid is), then one of its colours.
      if (found.kind === 'grid' && !row) {
        row = true;
        continue;
      }
      if (found.kind === 'colors' || found.kind === 'enumList' || found.kind === 'grid') item = true;
      else if (found.kind !== 'states') return undefined;
      continue;
    }
    if (found !== undefined && found.kind !== 'state' && found.kind !== 'states') return undefined;
    if (found !== undefined) params = OPERATIONS.setState.params;
    found = params.find((p) => p.v1 === token);
    if (found === undefined) return undefined;
  }
  return found === undefined ? undefined : { param: found, item };
}

export const SET_STATE_BODY = bodyOf(OPERATIONS.setState);
export const SET_STATES_BODY = bodyOf(OPERATIONS.setStates);
export const CYCLE_BODY = bodyOf(OPERATIONS.cycle);

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

/** The HTTP operationId of each write: the catalogue's name, or its own `operationId`. */
type WriteId = { [N in OperationName]: (typeof OPERATIONS)[N] extends { readonly operationId: infer I extends string } ? I : N }[OperationName];

export type OperationId = 'listLights' | 'listScenes' | 'validateColor' | 'listDeviceSelectors' | 'listSceneSelectors' | 'listThemes' | WriteId;

export interface Endpoint {
  readonly id: OperationId;
  readonly method: 'GET' | 'PUT' | 'POST';
  /** Fastify's form, relative to /v1: `:selector` is the selector path segment, `:scene` is `scene_id:<uuid>`. */
  readonly path: string;
  readonly summary: string;
  readonly scope: Scope;
  /** The catalogue's operation a write runs. */
  readonly operation?: OperationName;
  readonly body?: JsonSchema;
  readonly query?: JsonSchema;
  /** 200 for reads, 207 for writes; writes also answer 202 with no body in fast mode. */
  readonly status: 200 | 207;
  readonly response: JsonSchema;
}

/** A write of the catalogue as an endpoint. */
function write(name: OperationName): Endpoint {
  const operation: OperationDecl = OPERATIONS[name];
  return {
    id: (operation.operationId ?? operation.name) as OperationId,
    method: operation.method,
    path: operation.path,
    summary: operation.summary,
    scope: operation.scope,
    operation: name,
    body: bodyOf(operation),
    status: 207,
    response: name === 'setStates' ? SET_STATES_RESPONSE : RESULTS_RESPONSE,
  };
}

const WRITES = (Object.keys(OPERATIONS) as OperationName[]).filter((n) => n !== 'activateScene' && (OPERATIONS[n] as OperationDecl).api === undefined).map(write);

/** List Themes: each theme's name and palette (Lightwire's own, beside /v1). */
export const THEMES_RESPONSE: JsonSchema = {
  type: 'array',
  items: {
    type: 'object',
    required: ['name', 'palette'],
    properties: {
      name: { type: 'string' },
      palette: { type: 'array', items: { type: 'object', properties: { hue: { type: 'number' }, saturation: { type: 'number' }, brightness: { type: 'number' }, kelvin: { type: 'number' } } } },
    },
  },
};

export const ENDPOINTS: readonly Endpoint[] = Object.freeze([
  { id: 'listLights', method: 'GET', path: '/lights/:selector', summary: 'List Lights', scope: 'read', status: 200, response: LIGHTS_RESPONSE },
  ...WRITES,
  { id: 'listScenes', method: 'GET', path: '/scenes', summary: 'List Scenes', scope: 'read', status: 200, response: SCENES_RESPONSE },
  write('activateScene'),
  { id: 'validateColor', method: 'GET', path: '/color', summary: 'Validate Color', scope: 'read', query: VALIDATE_COLOR_QUERY, status: 200, response: VALIDATED_COLOR },
  { id: 'listDeviceSelectors', method: 'GET', path: '/selectors/devices', summary: 'Selectors of every light (Power Automate)', scope: 'read', status: 200, response: SELECTOR_LIST_RESPONSE },
  { id: 'listSceneSelectors', method: 'GET', path: '/selectors/scenes', summary: 'Selectors of every scene (Power Automate)', scope: 'read', status: 200, response: SELECTOR_LIST_RESPONSE },
] satisfies Endpoint[]);

/**
 * Renaming lights, groups and locations (https://lan.developer.lifx.com/docs/changing-a-device): endpoints of our own,
 * served beside /v1 at NAMING_PREFIX (the cloud's v1 has none, and /v1 stays exactly the cloud's).
 */
export const NAMING_ENDPOINTS: readonly Endpoint[] = Object.freeze(NAMING_OPERATIONS.map((o) => write(o.name as OperationName)));

/**
 * Every endpoint served beside /v1 at NAMING_PREFIX: renaming, Paint Pixels and Paint Theme (the catalogue's
 * `api: 'lightwire'` writes), and List Themes.
 */
export const LIGHTWIRE_ENDPOINTS: readonly Endpoint[] = Object.freeze([
  ...(Object.keys(OPERATIONS) as OperationName[]).filter((n) => (OPERATIONS[n] as OperationDecl).api === 'lightwire').map(write),
  { id: 'listThemes', method: 'GET', path: '/themes', summary: 'List Themes', scope: 'read', status: 200, response: THEMES_RESPONSE },
] satisfies Endpoint[]);

/** Where LIGHTWIRE_ENDPOINTS are served, beside /v1. */
export const NAMING_PREFIX = '/lightwire';

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

// The subset of JSON Schema (draft-07, which Ajv 8 and OpenAPI 3.1 both read) that the v1 schemas use,
// and the two walks the API needs over a body and its schema: coercion of form strings and the set of
// parameters the schema does not know (https://api.developer.lifx.com/docs/errors: unknown keys
// become warnings).

export type JsonType = 'object' | 'array' | 'string' | 'number' | 'integer' | 'boolean' | 'null';

export interface JsonSchema {
  readonly type?: JsonType | readonly JsonType[];
  readonly description?: string;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  /** Always true on request bodies: unknown keys are warnings, not failures. */
  readonly additionalProperties?: boolean | JsonSchema;
  readonly items?: JsonSchema;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly enum?: readonly (string | number | boolean | null)[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  /** Documentation only: Ajv runs without useDefaults, the service applies defaults (one place). */
  readonly default?: unknown;
  readonly examples?: readonly unknown[];
  readonly anyOf?: readonly JsonSchema[];
}

/** The types a schema allows (`type` as a list). */
export function types(schema: JsonSchema): readonly JsonType[] {
  if (schema.type === undefined) return [];
  return typeof schema.type === 'string' ? [schema.type] : schema.type;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A plain object with no prototype, so keys such as `__proto__` stay ordinary data. */
export function bareObject(): Record<string, unknown> {
  return Object.create(null) as Record<string, unknown>;
}

const NUMBER_TEXT = /^\s*[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?\s*$/;

/**
 * A copy of `value` with strings turned into what the schema asks for, as form bodies need (booleans
 * arrive as the strings true/false and numbers as strings). Applied to JSON bodies too, so `"0.5"` works in
 * either. Rules: a number-like string becomes a number where the schema wants a number or integer; `true` /
 * `false` (any case) and `1` / `0` become booleans where it wants a boolean; a single value becomes a
 * one-element array where it wants an array (a form field given once); `null` on a known optional key is
 * dropped, so it means "not given" (clients that send every optional parameter as null). Anything else is
 * left alone for the validator to reject. Unknown keys are copied untouched.
 */
export function coerce(value: unknown, schema: JsonSchema): unknown {
  const want = types(schema);
  if (typeof value === 'string') {
    if ((want.includes('number') || want.includes('integer')) && NUMBER_TEXT.test(value)) return Number(value);
    if (want.includes('boolean')) {
      const lower = value.trim().toLowerCase();
      if (lower === 'true' || lower === '1') return true;
      if (lower === 'false' || lower === '0') return false;
    }
    if (want.includes('array') && !want.includes('string') && schema.items) return [coerce(value, schema.items)];
    return value;
  }
  if (Array.isArray(value)) {
    if (!want.includes('array') || !schema.items) return value;
    const items = schema.items;
    return value.map((v) => coerce(v, items));
  }
  if (isRecord(value)) {
    if (!want.includes('object') || !schema.properties) return value;
    const out = bareObject();
    for (const key of Object.keys(value)) {
      const child = Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined;
      const v = value[key];
      if (child === undefined) out[key] = v;
      else if (v === null && !types(child).includes('null')) continue;
      else out[key] = coerce(v, child);
    }
    return out;
  }
  if (want.includes('array') && !want.includes(typeOf(value)) && schema.items && value !== null && value !== undefined) {
    return [coerce(value, schema.items)];
  }
  return value;
}

function typeOf(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'string':
      return 'string';
    default:
      return 'object';
  }
}

/**
 * The parameters of `body` that `schema` does not name, in their nested position: an unknown key keeps
 * its value; a known object holds its own unknown keys (possibly `{}`); a known array of objects holds one
 * entry per item. Undefined when nothing anywhere is unknown, so a clean request carries no warning. The
 * forum example this reproduces: `{"defaults": {}, "states": [{"kelvin": 3000}, {}]}`.
 */
export function unknownParams(body: unknown, schema: JsonSchema): Record<string, unknown> | undefined {
  const found = { any: false };
  const tree = walkUnknown(body, schema, found);
  return found.any && isRecord(tree) ? tree : undefined;
}

function walkUnknown(value: unknown, schema: JsonSchema, found: { any: boolean }): unknown {
  if (Array.isArray(value)) {
    const items = schema.items;
    if (!items || !items.properties) return undefined;
    return value.map((v) => walkUnknown(v, items, found) ?? bareObject());
  }
  if (!isRecord(value) || !schema.properties) return undefined;
  const out = bareObject();
  for (const key of Object.keys(value)) {
    const child = Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined;
    if (child === undefined) {
      out[key] = value[key];
      found.any = true;
      continue;
    }
    const nested = value[key];
    if ((isRecord(nested) && child.properties) || (Array.isArray(nested) && child.items?.properties)) {
      const sub = walkUnknown(nested, child, found);
      if (sub !== undefined) out[key] = sub;
    }
  }
  return out;
}

/** Depth of nested arrays and objects, counted without recursion (a hostile body may nest deeply). */
export function nestingDepth(value: unknown, stopAt: number): number {
  let max = 0;
  const stack: { v: unknown; d: number }[] = [{ v: value, d: 0 }];
  while (stack.length > 0) {
    const { v, d } = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    const depth = d + 1;
    if (depth > max) max = depth;
    if (max > stopAt) return max;
    const children = Array.isArray(v) ? v : Object.values(v as Record<string, unknown>);
    for (const c of children) if (typeof c === 'object' && c !== null) stack.push({ v: c, d: depth });
  }
  return max;
}

/**
 * The schema as a response serializer should see it: without `required`, because fast-json-stringify writes
 * required keys first and would move `infrared` and `zones` away from where the List Lights examples put
 * them. Derived from the one schema, so documentation and output still share a source.
 */
export function withoutRequired(schema: JsonSchema): JsonSchema {
  const { required: _required, properties, items, anyOf, ...rest } = schema;
  return {
    ...rest,
    ...(properties ? { properties: Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, withoutRequired(v)])) } : {}),
    ...(items ? { items: withoutRequired(items) } : {}),
    ...(anyOf ? { anyOf: anyOf.map(withoutRequired) } : {}),
  };
}

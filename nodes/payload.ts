// What a set-state message asks for: msg.payload (and msg.selector) turned into one checked operation on the
// light service, before anything is sent. Parameter names are the HTTP API v1's (duration, from_color,
// power_on, ...), so a body copied from the LIFX documentation works as a payload. The operations and their
// parameters come from the service's catalogue, and every value is checked by its one parser (in the v1 names,
// fields prefixed `payload.`), so a bad value gets the same code and text here as over HTTP; unknown keys are
// refused (a typo must not pass silently as "nothing to change").

import {
  EFFECT_OPERATIONS,
  LightwireError,
  NAMING_OPERATIONS,
  clipped,
  parseRequest,
  quoted,
  type Checked,
  type EffectOperationName,
  type LightResult,
  type LightService,
  type NamingOperationName,
  type RenameOperationName,
  type Scene,
} from '../core/index.js';

/** Every effect of the service's catalogue, by the name a payload gives in `effect` (`off` stops them). */
export const EFFECTS: Readonly<Record<string, EffectOperationName>> = Object.freeze(
  Object.fromEntries(EFFECT_OPERATIONS.map((o) => [o.effect.name, o.name as EffectOperationName])),
);

export const EFFECT_NAMES: readonly string[] = Object.freeze(Object.keys(EFFECTS));

/** One checked request, ready to run. */
export type Operation =
  | { readonly kind: 'setState'; readonly request: Checked<'setState'>; readonly fast: boolean }
  | { readonly kind: 'toggle'; readonly request: Checked<'toggle'>; readonly fast: boolean }
  | { readonly kind: 'effect'; readonly effect: EffectOperationName; readonly request: Checked<EffectOperationName>; readonly fast: boolean }
  | { readonly kind: 'scene'; readonly scene: string; readonly request: Checked<'activateScene'>; readonly fast: boolean }
  | { readonly kind: 'paint'; readonly request: Checked<'paint'>; readonly fast: boolean }
  | { readonly kind: 'theme'; readonly request: Checked<'theme'>; readonly fast: boolean }
  | { readonly kind: 'capture'; readonly name: string }
  | { readonly kind: 'naming'; readonly operation: NamingOperationName; readonly request: Checked<NamingOperationName> };

/**
 * The renaming operations by their payload key: `{label: "Desk"}`, `{group: "Kitchen"}`, `{location: "Home"}` act on
 * the selector's lights; `{rename_group: {from, to}}` and `{rename_location: {from, to}}` rename by name.
 */
export const NAMING_PAYLOADS: Readonly<Record<string, NamingOperationName>> = Object.freeze(
  Object.fromEntries(NAMING_OPERATIONS.map((o) => [o.naming.payload, o.name as NamingOperationName])),
);

/** A payload with any of these is Paint Pixels (a grid, or a rectangle of one colour), not Set State. */
const PAINT_KEYS = ['pixels', 'x', 'y', 'width', 'height'] as const;

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

function fastOf(payload: Record<string, unknown>, defaults: NodeDefaults): boolean {
  if (payload.fast === undefined) return defaults.fast;
  if (typeof payload.fast !== 'boolean') throw invalid('payload.fast', 'must be true or false');
  return payload.fast;
}

function nonEmptyString(field: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw invalid(field, 'must be a non-empty string');
  return value.trim();
}

/** The catalogue's parser, in the HTTP API's names, fields prefixed `payload.`; `handled` are the node's own keys. */
function check<N extends 'setState' | 'toggle' | 'activateScene' | 'paint' | 'theme' | EffectOperationName | NamingOperationName>(name: N, input: Record<string, unknown>, handled: readonly string[], prefix = 'payload.'): Checked<N> {
  return parseRequest(name, input, { vocabulary: 'v1', prefix, strict: true, ignore: handled });
}

/** A renaming payload: always confirmed (no `fast`); a rename's `{from, to}` is its own object, alone in the payload. */
function naming(key: string, payload: Record<string, unknown>): Operation {
  const operation = NAMING_PAYLOADS[key]!;
  if (NAMING_OPERATIONS.find((o) => o.name === operation)!.naming.rename) {
    const extra = Object.keys(payload).find((k) => k !== key);
    if (extra !== undefined) throw invalid(`payload.${extra}`, `is not a parameter here; use ${key}`);
    return { kind: 'naming', operation, request: check(operation, payload[key] as Record<string, unknown>, [], `payload.${key}.`) };
  }
  return { kind: 'naming', operation, request: check(operation, payload, []) };
}

/** The node's transition, for a message that gives none. */
function withDuration(input: Record<string, unknown>, defaults: NodeDefaults): Record<string, unknown> {
  return input.duration === undefined && defaults.durationS !== undefined ? { ...input, duration: defaults.durationS } : input;
}

/** A Set State request with the node's transition filled in when the message gives none. */
function setState(input: Record<string, unknown>, defaults: NodeDefaults, fast: boolean): Operation {
  return { kind: 'setState', request: check('setState', withDuration(input, defaults), ['fast']), fast };
}

function toggle(input: Record<string, unknown>, defaults: NodeDefaults, fast: boolean): Operation {
  return { kind: 'toggle', request: check('toggle', withDuration(input, defaults), ['toggle', 'fast']), fast };
}

/**
 * msg.payload -> one operation. Forms: an object (power, color, brightness, infrared, duration, fast);
 * "on" / "off" / "toggle"; true / false; any other string is a colour; a number 0-1 is a brightness;
 * {effect: name, ...} for every effect in EFFECTS; {scene: name or uuid, duration?}; {capture: name};
 * renaming (NAMING_PAYLOADS): {label}, {group}, {location}, {rename_group: {from, to}}, {rename_location: {from, to}};
 * {theme: name, duration?} (Paint Theme); {pixels: [[colour, ...], ...], x?, y?} or {color, x?, y?, width?, height?}
 * with any of x, y, width, height (Paint Pixels on matrix lights).
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
    if (word === 'toggle') return toggle({}, defaults, defaults.fast);
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
  const renaming = Object.keys(payload).find((k) => Object.hasOwn(NAMING_PAYLOADS, k) && payload[k] !== undefined);
  if (renaming !== undefined) return naming(renaming, payload);
  const fast = fastOf(payload, defaults);
  if (payload.effect !== undefined) {
    const name = nonEmptyString('payload.effect', payload.effect);
    const effect = Object.hasOwn(EFFECTS, name) ? EFFECTS[name] : undefined;
    if (effect === undefined) throw invalid('payload.effect', `must be one of ${EFFECT_NAMES.join(', ')}`);
    return { kind: 'effect', effect, request: check(effect, payload, ['effect', 'fast']), fast };
  }
  if (payload.scene !== undefined) {
    const scene = nonEmptyString('payload.scene', payload.scene);
    return { kind: 'scene', scene, request: check('activateScene', withDuration(payload, defaults), ['scene', 'fast']), fast };
  }
  if (payload.capture !== undefined) {
    const extra = Object.keys(payload).find((k) => k !== 'capture');
    if (extra !== undefined) throw invalid(`payload.${extra}`, 'is not a parameter here; use capture');
    return { kind: 'capture', name: nonEmptyString('payload.capture', payload.capture) };
  }
  if (payload.theme !== undefined) return { kind: 'theme', request: check('theme', withDuration(payload, defaults), ['fast']), fast };
  if (PAINT_KEYS.some((k) => payload[k] !== undefined)) return { kind: 'paint', request: check('paint', withDuration(payload, defaults), ['fast']), fast };
  if (payload.toggle !== undefined) {
    if (payload.toggle !== true) throw invalid('payload.toggle', 'must be true');
    return toggle(payload, defaults, fast);
  }
  // "ON" as a payload is on, so {power: "ON"} is too: power is read as the shorthands are (power()).
  const input = typeof payload.power === 'string' ? { ...payload, power: payload.power.trim().toLowerCase() } : payload;
  const named = Object.keys(input).filter((k) => k !== 'fast' && k !== 'duration' && input[k] !== undefined);
  if (named.length === 0) {
    throw new LightwireError('PARAMETER_MISSING', { field: 'payload.power, payload.color, payload.brightness or payload.infrared' });
  }
  return setState(input, defaults, fast);
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
      // A flow firing faster than a light takes: a message still waiting for a light gives way to a newer one that
      // sets all it sets (WriteOptions.latestWins), and its results say so.
      return { results: await service.perform('setState', selector(), op.request, { fast: op.fast, latestWins: true }) };
    case 'toggle':
      return { results: await service.perform('toggle', selector(), op.request, { fast: op.fast }) };
    case 'effect':
      return { results: await service.perform(op.effect, selector(), op.request, { fast: op.fast }) };
    case 'paint':
      return { results: await service.perform('paint', selector(), op.request, { fast: op.fast }) };
    case 'theme':
      return { results: await service.perform('theme', selector(), op.request, { fast: op.fast }) };
    case 'scene':
      // The service finds a scene by its uuid or by its name.
      return { results: await service.activateScene(op.scene, op.request, { fast: op.fast }) };
    case 'naming':
      return { results: await (isRename(op.operation) ? service.rename(op.operation, op.request as Checked<RenameOperationName>) : service.perform(op.operation, selector(), op.request as Checked<typeof op.operation>)) };
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

function isRename(name: NamingOperationName): name is RenameOperationName {
  return name === 'renameGroup' || name === 'renameLocation';
}

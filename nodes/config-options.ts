// The lightwire-config node's properties, checked again at runtime (flows are edited by hand, imported and
// generated) and turned into frozen options. Every failure is an OPTIONS_INVALID naming
// the property as the editor shows it; the core then checks addresses, subnets and tokens itself.

import { DURATION_MAX_S, LIFX_PORT, LightwireError, PORT_MAX, partsFromConfig, quoted, type PartsConfig } from '../core/index.js';
import { listenHostProblem } from '../core/http/index.js';

/** The properties as a flow file stores them: strings, numbers and booleans, any of them missing. */
export interface ConfigProps {
  readonly name?: unknown;
  readonly broadcast?: unknown;
  readonly hosts?: unknown;
  readonly subnets?: unknown;
  readonly lanPort?: unknown;
  readonly refreshS?: unknown;
  readonly durationS?: unknown;
  readonly timeoutS?: unknown;
  readonly virtual?: unknown;
  readonly virtualLights?: unknown;
  readonly http?: unknown;
  readonly httpHost?: unknown;
  readonly httpPort?: unknown;
  readonly scenesFile?: unknown;
  readonly productsFile?: unknown;
  /** The user's parts of lights, as JSON text (core/control/parts.ts): `{"Strip": ["left", "middle", "right"]}`. */
  readonly parts?: unknown;
}

/** Secrets live in Node-RED's credentials store, never in the flow file. */
export interface ConfigCredentials {
  readonly tokens?: unknown;
}

export interface HttpEndpointOptions {
  readonly host: string;
  readonly port: number;
  /** `TOKEN[:SCOPES]` strings (core/http checks them). */
  readonly tokens: readonly string[];
}

export interface ConfigOptions {
  /** null: broadcast on every IPv4 interface. */
  readonly broadcastAddresses: readonly string[] | null;
  readonly staticHosts: readonly string[];
  readonly sweepSubnets: readonly string[];
  readonly lanPort: number;
  /** Background refresh of every light; 0 turns it off. */
  readonly refreshIntervalMs: number;
  /** The transition used when a message gives none. */
  readonly defaultDurationS: number;
  /** How long a light may take to answer, for writes and background reads; null = the core's defaults. */
  readonly answerTimeoutMs: number | null;
  /** Virtual lights run on loopback by the config node itself; 0 = off (the default). */
  readonly virtualLights: number;
  readonly http: HttpEndpointOptions | null;
  /** null: no scene file. */
  readonly scenesFile: string | null;
  /** A newer vendor products.json laid over the bundled registry; null: the bundled registry alone. */
  readonly productsFile: string | null;
  /** The user's parts of lights (segments of strips), checked; absent: only the products' parts. */
  readonly parts?: PartsConfig;
}

export const CONFIG_DEFAULTS = Object.freeze({
  lanPort: LIFX_PORT,
  refreshS: 10,
  durationS: 1,
  virtualLights: 5,
  httpHost: '127.0.0.1',
  httpPort: 3000,
});
/** Enough for a demo and for the 100-light measurement; more belongs to `lightwire simulate`. */
export const MAX_VIRTUAL_LIGHTS = 500;
/** Longer than any LAN round trip by far; a write waiting longer would hold its flow message for minutes. */
const MAX_TIMEOUT_S = 60;
/** A day: longer refresh intervals mean the cache is never refreshed in practice. */
const MAX_REFRESH_S = 86_400;

/** What a number property may hold. */
export interface NumberRange {
  readonly min: number;
  readonly max: number;
  readonly integer: boolean;
}

/**
 * The ranges of the config node's number properties: the one list the runtime checks against. The editor
 * (lightwire-config.html) cannot import it, so it carries a copy, and test/nodes/editor-validators.test.ts holds
 * the two together (same table, same answer for every value).
 */
export const CONFIG_RANGES = Object.freeze({
  virtualLights: Object.freeze({ min: 1, max: MAX_VIRTUAL_LIGHTS, integer: true }),
  lanPort: Object.freeze({ min: 1, max: PORT_MAX, integer: true }),
  refreshS: Object.freeze({ min: 0, max: MAX_REFRESH_S, integer: false }),
  durationS: Object.freeze({ min: 0, max: DURATION_MAX_S, integer: false }),
  timeoutS: Object.freeze({ min: 0.01, max: MAX_TIMEOUT_S, integer: false }),
  // 0: any free port (the endpoint's URL then shows the one it got).
  httpPort: Object.freeze({ min: 0, max: PORT_MAX, integer: true }),
}) satisfies Readonly<Record<string, NumberRange>>;

/**
 * A number as a person types it: decimal digits, an optional fraction and exponent. Number() alone would also
 * take "0x10", "0b11", "0o7" and "Infinity"; the editor's input is text, so "0x10" as port 16 is a typo
 * passed off as a value, not a value.
 */
export const DECIMAL_NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** A number from a property: a number as is, a string in DECIMAL_NUMBER's grammar; null for anything else. */
export function numberIn(value: unknown): number | null {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && DECIMAL_NUMBER.test(value.trim())) return Number(value.trim());
  return null;
}

/** Whether a number is in a range: finite, whole when it must be, from min to max. */
export function inRange(n: number | null, range: NumberRange): n is number {
  return n !== null && Number.isFinite(n) && (!range.integer || Number.isInteger(n)) && n >= range.min && n <= range.max;
}

/** The `parts` text: JSON of lights (label or serial) to segment names or zone ranges, checked as the service checks it. */
function partsProp(value: unknown): { parts?: PartsConfig } {
  const text = stringProp('parts', value, '').trim();
  if (text === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalid('parts', 'must be JSON, like {"Strip": ["left", "middle", "right"]}');
  }
  partsFromConfig(parsed);
  return { parts: parsed as PartsConfig };
}

function invalid(option: string, reason: string): LightwireError<'OPTIONS_INVALID'> {
  return new LightwireError('OPTIONS_INVALID', { option, reason });
}

/** A list property: a string of entries separated by commas, spaces or new lines, or an array of strings. */
export function listProp(option: string, value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) {
    if (!value.every((v) => typeof v === 'string')) throw invalid(option, 'must be a list of strings');
    return value.map((v: string) => v.trim()).filter((v) => v !== '');
  }
  if (typeof value !== 'string') throw invalid(option, 'must be a string of entries separated by commas or spaces');
  return value.split(/[\s,]+/).filter((v) => v !== '');
}

/**
 * A number property: a finite number, or a string holding one in decimal (the editor stores typed-in numbers as
 * strings). Empty or missing is the fallback, in the editor as here.
 */
export function numberProp(option: string, value: unknown, fallback: number, range: NumberRange): number {
  if (value === undefined || value === null || value === '') return fallback;
  const n = numberIn(value);
  if (!inRange(n, range)) {
    throw invalid(option, `must be ${range.integer ? 'an integer' : 'a number'} from ${range.min} to ${range.max}, got ${quoted(value)}`);
  }
  return n;
}

/** A checkbox: a boolean, or "true"/"false" from a hand-written flow. */
export function booleanProp(option: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined || value === null || value === '') return fallback;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw invalid(option, `must be true or false, got ${quoted(value)}`);
}

export function stringProp(option: string, value: unknown, fallback: string): string {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'string') throw invalid(option, `must be a string, got ${quoted(value)}`);
  const trimmed = value.trim();
  return trimmed === '' ? fallback : trimmed;
}

/** What httpHost takes, said in every refusal so the fix is in the message. */
export const HOST_EXPECTED = 'must be an IP address such as 127.0.0.1, 0.0.0.0 or ::1, or a host name such as localhost';

/** An address to listen on: an IP address or a host name, without a scheme, port or path. */
function hostProp(option: string, value: unknown, fallback: string): string {
  const host = stringProp(option, value, fallback);
  // The core's own words for "http://pc" would be "is not an IPv6 address" (the colon); a URL is the likely slip.
  const problem = /^[a-z][a-z0-9+.-]*:\/\//i.test(host) ? 'is a URL, not an address' : listenHostProblem(host);
  if (problem !== null) throw invalid(option, `${HOST_EXPECTED}; ${quoted(host)} ${problem}`);
  return host;
}

/**
 * Checks every property of a lightwire-config node. `defaultScenesFile` is where scenes live when the node names
 * no file (the Node-RED user directory's lightwire-scenes.json), or null when there is no such place.
 *
 * A section that is switched off is not read: with virtual lights on, the real-light finding (broadcast, hosts,
 * subnets, LAN port); with them off, their count; with the HTTP API off, its address and port. The editor hides
 * those fields then, so a value there that does not check out could neither be seen nor fixed, and it changes
 * nothing, so it must not stop the lights.
 */
export function configOptions(props: ConfigProps, credentials: ConfigCredentials = {}, defaultScenesFile: string | null = null): ConfigOptions {
  if (typeof props !== 'object' || props === null) throw invalid('config', 'must be an object');
  const virtual = booleanProp('virtual', props.virtual, false);
  const http = booleanProp('http', props.http, false);
  const broadcast = virtual ? [] : listProp('broadcast', props.broadcast);
  const timeoutS = props.timeoutS === undefined || props.timeoutS === null || props.timeoutS === '' ? null : numberProp('timeoutS', props.timeoutS, 0, CONFIG_RANGES.timeoutS);
  const options: ConfigOptions = {
    broadcastAddresses: broadcast.length === 0 ? null : Object.freeze(broadcast),
    staticHosts: Object.freeze(virtual ? [] : listProp('hosts', props.hosts)),
    sweepSubnets: Object.freeze(virtual ? [] : listProp('subnets', props.subnets)),
    lanPort: virtual ? CONFIG_DEFAULTS.lanPort : numberProp('lanPort', props.lanPort, CONFIG_DEFAULTS.lanPort, CONFIG_RANGES.lanPort),
    refreshIntervalMs: Math.round(numberProp('refreshS', props.refreshS, CONFIG_DEFAULTS.refreshS, CONFIG_RANGES.refreshS) * 1000),
    defaultDurationS: numberProp('durationS', props.durationS, CONFIG_DEFAULTS.durationS, CONFIG_RANGES.durationS),
    answerTimeoutMs: timeoutS === null ? null : Math.max(1, Math.round(timeoutS * 1000)),
    virtualLights: virtual ? numberProp('virtualLights', props.virtualLights, CONFIG_DEFAULTS.virtualLights, CONFIG_RANGES.virtualLights) : 0,
    http: http
      ? Object.freeze({
          host: hostProp('httpHost', props.httpHost, CONFIG_DEFAULTS.httpHost),
          port: numberProp('httpPort', props.httpPort, CONFIG_DEFAULTS.httpPort, CONFIG_RANGES.httpPort),
          tokens: Object.freeze(listProp('tokens', credentials.tokens)),
        })
      : null,
    scenesFile: stringProp('scenesFile', props.scenesFile, '') || defaultScenesFile,
    productsFile: stringProp('productsFile', props.productsFile, '') || null,
    ...partsProp(props.parts),
  };
  if (props.name !== undefined && typeof props.name !== 'string') throw invalid('name', 'must be a string');
  return Object.freeze(options);
}

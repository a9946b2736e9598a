// The lightwire-config node's properties, checked again at runtime (flows are edited by hand, imported and
// generated: architecture.md §5.6) and turned into frozen options. Every failure is an OPTIONS_INVALID naming
// the property as the editor shows it; the core then checks addresses, subnets and tokens itself.

import { DURATION_MAX_S, LIFX_PORT, LightwireError, quoted } from '../core/index.js';
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

/** A number property: a finite number, or a string holding one (the editor stores typed-in numbers as strings). */
export function numberProp(option: string, value: unknown, fallback: number, min: number, max: number, integer: boolean): number {
  if (value === undefined || value === null || value === '') return fallback;
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  const kind = integer ? 'an integer' : 'a number';
  if (typeof n !== 'number' || !Number.isFinite(n) || (integer && !Number.isInteger(n)) || n < min || n > max) {
    throw invalid(option, `must be ${kind} from ${min} to ${max}, got ${quoted(value)}`);
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

/** An address to listen on: an IP address or a host name. */
function hostProp(option: string, value: unknown, fallback: string): string {
  const host = stringProp(option, value, fallback);
  const problem = listenHostProblem(host);
  if (problem !== null) throw invalid(option, `${problem}, got ${quoted(host)}`);
  return host;
}

/**
 * Checks every property of a lightwire-config node. `defaultScenesFile` is where scenes live when the node names
 * no file (the Node-RED user directory's lightwire-scenes.json), or null when there is no such place.
 */
export function configOptions(props: ConfigProps, credentials: ConfigCredentials = {}, defaultScenesFile: string | null = null): ConfigOptions {
  if (typeof props !== 'object' || props === null) throw invalid('config', 'must be an object');
  const virtual = booleanProp('virtual', props.virtual, false);
  const http = booleanProp('http', props.http, false);
  const broadcast = listProp('broadcast', props.broadcast);
  const options: ConfigOptions = {
    broadcastAddresses: broadcast.length === 0 ? null : Object.freeze(broadcast),
    staticHosts: Object.freeze(listProp('hosts', props.hosts)),
    sweepSubnets: Object.freeze(listProp('subnets', props.subnets)),
    lanPort: numberProp('lanPort', props.lanPort, CONFIG_DEFAULTS.lanPort, 1, 65535, true),
    refreshIntervalMs: Math.round(numberProp('refreshS', props.refreshS, CONFIG_DEFAULTS.refreshS, 0, MAX_REFRESH_S, false) * 1000),
    defaultDurationS: numberProp('durationS', props.durationS, CONFIG_DEFAULTS.durationS, 0, DURATION_MAX_S, false),
    answerTimeoutMs: props.timeoutS === undefined || props.timeoutS === null || props.timeoutS === '' ? null : Math.max(1, Math.round(numberProp('timeoutS', props.timeoutS, 0, 0.01, MAX_TIMEOUT_S, false) * 1000)),
    // The count is checked even when virtual lights are off, so a bad hand edit shows at once.
    virtualLights: virtual ? numberProp('virtualLights', props.virtualLights, CONFIG_DEFAULTS.virtualLights, 1, MAX_VIRTUAL_LIGHTS, true) : 0,
    http: http
      ? Object.freeze({
          host: hostProp('httpHost', props.httpHost, CONFIG_DEFAULTS.httpHost),
          port: numberProp('httpPort', props.httpPort, CONFIG_DEFAULTS.httpPort, 0, 65535, true),
          tokens: Object.freeze(listProp('tokens', credentials.tokens)),
        })
      : null,
    scenesFile: stringProp('scenesFile', props.scenesFile, '') || defaultScenesFile,
  };
  if (!virtual) numberProp('virtualLights', props.virtualLights, CONFIG_DEFAULTS.virtualLights, 1, MAX_VIRTUAL_LIGHTS, true);
  if (!http) {
    hostProp('httpHost', props.httpHost, CONFIG_DEFAULTS.httpHost);
    numberProp('httpPort', props.httpPort, CONFIG_DEFAULTS.httpPort, 0, 65535, true);
  }
  if (props.name !== undefined && typeof props.name !== 'string') throw invalid('name', 'must be a string');
  return Object.freeze(options);
}

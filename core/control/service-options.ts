// The light service's options: what it takes, checked once and frozen (a bad option throws before anything opens).

import { MAX_TIMER_MS } from '../builtins.js';
import { LightClient } from '../discovery/client.js';
import type { DiscoveryOptionsInput } from '../discovery/options.js';
import { LightwireError } from '../errors.js';
import { DEFAULT_DURATION_S, DURATION_MAX_S, ProductRegistry } from '../protocol/index.js';
import type { TransportOptions } from '../transport/options.js';
import { unknownOption } from '../text.js';
import { DEFAULT_FRESH_STATE_MS } from './executor.js';
import { SceneStore } from './scene-store.js';
import { partsFromConfig, type PartDef, type PartsConfig } from './parts.js';

export interface LightServiceOptions {
  /** A client to use instead of building one from `transport` and `discovery`; start() starts it if it is not. */
  readonly client?: LightClient;
  readonly transport?: Partial<TransportOptions>;
  readonly discovery?: DiscoveryOptionsInput;
  /** Per light, for the read, every step and every retry (HTTP clients give up after 5-10 s). */
  readonly deadlineMs?: number;
  /**
   * How old (ms) what the service read or wrote of a light may be for a confirmed write to be planned from it without
   * reading the light first (default 5000; 0 reads before every confirmed colour change). See Executor.fromCache.
   */
  readonly freshStateMs?: number;
  /**
   * Where scenes live: a store, or a scene file opened by start(). Without it, scene operations fail with
   * SCENE_NOT_FOUND and `scene_id:` matches nothing.
   */
  readonly scenes?: SceneStore | string;
  /** The transition of a request that names none, in seconds (default 1, as the cloud API). */
  readonly defaultDurationS?: number;
  /** `ready` resolves at the latest this long after start() (default 5000). */
  readonly readyTimeoutMs?: number;
  /** `ready` resolves as soon as this many lights have been read. */
  readonly expectLights?: number;
  /** For `:random` selectors and the `random` colour. */
  readonly random?: () => number;
  /**
   * Products newer than the package: a vendor products.json (path), read by start() and laid over the bundled
   * registry, or a registry. A file that cannot be used is reported as an `error` (PRODUCTS_FILE_INVALID) and the
   * bundled registry stays in use.
   */
  readonly products?: string | ProductRegistry;
  /**
   * The user's parts of lights (parts.ts), by serial or label: `{ "Kitchen strip": ["left", "middle", "right"] }` cuts
   * it into three equal segments, `{ "d073d5000001": { "desk": "0-9", "shelf": "10-29" } }` names zone ranges. A light's
   * product parts (Ceiling: downlight, uplight; Mirror: front, rear) need no option.
   */
  readonly parts?: PartsConfig;
}

/** How long after start() discovery is given before `ready` waits only for the reads of the lights found. */
export const FIRST_ROUND_MS = 750;
export const DEFAULT_READY_TIMEOUT_MS = 5000;
export const DEFAULT_DEADLINE_MS = 4000;

function optionInvalid(option: string, reason: string): LightwireError<'OPTIONS_INVALID'> {
  return new LightwireError('OPTIONS_INVALID', { option, reason });
}

/** Every option a service takes, checked by the compiler against LightServiceOptions both ways. */
const SERVICE_OPTIONS: Readonly<Record<keyof LightServiceOptions, true>> = {
  client: true,
  transport: true,
  discovery: true,
  deadlineMs: true,
  freshStateMs: true,
  scenes: true,
  defaultDurationS: true,
  readyTimeoutMs: true,
  expectLights: true,
  random: true,
  products: true,
  parts: true,
};

function positiveInt(option: string, value: number | undefined, fallback: number): number {
  const v = value === undefined ? fallback : value;
  // A duration is waited for by a timer, which cannot wait longer than MAX_TIMER_MS.
  const max = option.endsWith('Ms') ? MAX_TIMER_MS : Number.MAX_SAFE_INTEGER;
  if (!Number.isInteger(v) || v < 1 || v > max) throw optionInvalid(option, max === MAX_TIMER_MS ? `must be an integer from 1 to ${MAX_TIMER_MS} (ms)` : 'must be a positive integer');
  return v;
}

/** A service's options, checked, with the defaults filled in. */
export interface ServiceSettings {
  readonly client: LightClient;
  readonly deadlineMs: number;
  readonly freshStateMs: number;
  readonly defaultDurationS: number;
  readonly readyTimeoutMs: number;
  readonly expectLights: number;
  readonly random: () => number;
  readonly scenesFile: string | undefined;
  readonly sceneStore: SceneStore | undefined;
  /** A products.json for start() to read (service option `products` as a path). */
  readonly productsFile: string | undefined;
  /** The user's parts of lights, by serial (lowercase) or label. */
  readonly parts: ReadonlyMap<string, readonly PartDef[]>;
}

/** Checks a service's options (`new LightService(client, options)` is `{ ...options, client }`). */
export function serviceSettings(clientOrOptions: LightClient | LightServiceOptions, legacy: LightServiceOptions): ServiceSettings {
  const options: LightServiceOptions = clientOrOptions instanceof LightClient ? { ...legacy, client: clientOrOptions } : clientOrOptions;
  if (typeof options !== 'object' || options === null) throw optionInvalid('options', 'must be an object');
  const unknown = unknownOption(options, Object.keys(SERVICE_OPTIONS), 'a service');
  if (unknown) throw optionInvalid(unknown.key, unknown.reason);
  if (options.client !== undefined && !(options.client instanceof LightClient)) throw optionInvalid('client', 'must be a LightClient');
  const products = options.products;
  if (products !== undefined && typeof products !== 'string' && !(products instanceof ProductRegistry)) {
    throw optionInvalid('products', 'must be a products.json path or a ProductRegistry');
  }
  if (typeof products === 'string' && products.trim() === '') throw optionInvalid('products', 'must not be empty');
  const client = options.client ?? new LightClient({
    ...(options.transport ? { transport: options.transport } : {}),
    ...(options.discovery ? { discovery: options.discovery } : {}),
  });
  if (products instanceof ProductRegistry) client.useProducts(products);
  const deadlineMs = positiveInt('deadlineMs', options.deadlineMs, DEFAULT_DEADLINE_MS);
  const freshStateMs = options.freshStateMs ?? DEFAULT_FRESH_STATE_MS;
  if (typeof freshStateMs !== 'number' || !Number.isInteger(freshStateMs) || freshStateMs < 0 || freshStateMs > MAX_TIMER_MS) {
    throw optionInvalid('freshStateMs', `must be an integer number of ms, from 0 to ${MAX_TIMER_MS}`);
  }
  const readyTimeoutMs = positiveInt('readyTimeoutMs', options.readyTimeoutMs, DEFAULT_READY_TIMEOUT_MS);
  const expectLights = options.expectLights === undefined ? Infinity : positiveInt('expectLights', options.expectLights, 1);
  const defaultDurationS = options.defaultDurationS ?? DEFAULT_DURATION_S;
  if (typeof defaultDurationS !== 'number' || !Number.isFinite(defaultDurationS) || defaultDurationS < 0 || defaultDurationS > DURATION_MAX_S) {
    throw new LightwireError('PARAMETER_INVALID', { field: 'defaultDurationS', reason: `must be a number of seconds from 0 to ${DURATION_MAX_S}` });
  }
  let scenesFile: string | undefined;
  let sceneStore: SceneStore | undefined;
  if (typeof options.scenes === 'string') scenesFile = options.scenes;
  else if (options.scenes instanceof SceneStore) sceneStore = options.scenes;
  else if (options.scenes !== undefined) throw optionInvalid('scenes', 'must be a scene file path or a SceneStore');
  return Object.freeze({ client, deadlineMs, freshStateMs, defaultDurationS, readyTimeoutMs, expectLights, random: options.random ?? Math.random, scenesFile, sceneStore, productsFile: typeof products === 'string' ? products : undefined, parts: partsFromConfig(options.parts) });
}

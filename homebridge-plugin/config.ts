// The platform's configuration: the option table (config-spec.ts) drives the runtime parser (Homebridge hands the
// platform `Record<string, any>`, hand-edited JSON included) and generates config.schema.json, the form the
// Homebridge UI shows; test/homebridge-plugin/config.test.ts keeps the committed file equal to `configSchema()` and
// checks that the schema (through ajv) and the parser accept and reject the same documents.

import path from 'node:path';
import type { DiscoveryOptionsInput, LightServiceOptions } from '../core/index.js';
import { CONFIG_SPEC, PATTERNS, type ArraySpec, type BooleanSpec, type EffectKind, type LightwireConfig, type NumberSpec, type ObjectSpec, type Spec, type StringSpec } from './config-spec.js';
import { PLATFORM_NAME } from './settings.js';

export { CONFIG_SPEC, EFFECT_KINDS, PATTERNS } from './config-spec.js';
export type { AccessoryConfig, ArraySpec, BooleanSpec, EffectKind, LightwireConfig, NumberSpec, ObjectSpec, Parsed, Spec, StringSpec } from './config-spec.js';

/** Keys Homebridge itself puts in a platform block. */
const HOMEBRIDGE_KEYS: ReadonlySet<string> = new Set(['platform', '_bridge']);

// ---- the runtime parser ----

export interface ConfigIssue {
  /** Where, e.g. `discovery.staticHosts[1]`. */
  readonly path: string;
  /** The JSON Schema keyword that failed (as ajv names it), or `additionalProperties` for a warning. */
  readonly rule: 'type' | 'minimum' | 'maximum' | 'pattern' | 'enum' | 'minLength' | 'maxLength' | 'maxItems' | 'uniqueItems' | 'required' | 'additionalProperties';
  readonly message: string;
}

export type ConfigResult =
  | { readonly ok: true; readonly config: LightwireConfig; readonly warnings: readonly ConfigIssue[] }
  | { readonly ok: false; readonly errors: readonly ConfigIssue[]; readonly warnings: readonly ConfigIssue[] };

const show = (value: unknown): string => {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 60 ? `${text.slice(0, 57)}...` : text;
};

const kindOf = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'an object' : `${typeof value} ${show(value)}`;

class Walker {
  readonly errors: ConfigIssue[] = [];
  readonly warnings: ConfigIssue[] = [];

  private fail(path: string, rule: ConfigIssue['rule'], message: string): undefined {
    this.errors.push({ path, rule, message: `${path}: ${message}` });
    return undefined;
  }

  value(spec: Spec, value: unknown, path: string): unknown {
    switch (spec.type) {
      case 'boolean':
        if (value === undefined) return spec.default;
        return typeof value === 'boolean' ? value : this.fail(path, 'type', `must be true or false, got ${kindOf(value)}`);
      case 'number':
      case 'integer': {
        if (value === undefined) return spec.default;
        const whole = spec.type === 'integer';
        if (typeof value !== 'number' || !Number.isFinite(value) || (whole && !Number.isInteger(value))) {
          return this.fail(path, 'type', `must be ${whole ? 'a whole number' : 'a number'} from ${spec.minimum} to ${spec.maximum}, got ${kindOf(value)}`);
        }
        if (value < spec.minimum) return this.fail(path, 'minimum', `must be at least ${spec.minimum}, got ${value}`);
        if (value > spec.maximum) return this.fail(path, 'maximum', `must be at most ${spec.maximum}, got ${value}`);
        return value;
      }
      case 'string': {
        if (value === undefined) return spec.default;
        if (typeof value !== 'string') return this.fail(path, 'type', `must be text, got ${kindOf(value)}`);
        if (spec.enum !== undefined && !spec.enum.includes(value)) {
          return this.fail(path, 'enum', `must be one of ${spec.enum.join(', ')}, got ${show(value)}`);
        }
        // Lengths in code points, as JSON Schema (and ajv) count them.
        const length = [...value].length;
        if (spec.minLength !== undefined && length < spec.minLength) {
          return this.fail(path, 'minLength', spec.minLength === 1 ? 'must not be empty' : `needs at least ${spec.minLength} characters`);
        }
        if (spec.maxLength !== undefined && length > spec.maxLength) return this.fail(path, 'maxLength', `must be at most ${spec.maxLength} characters`);
        if (spec.pattern !== undefined && !new RegExp(spec.pattern, 'u').test(value)) {
          return this.fail(path, 'pattern', `${show(value)} is not ${describePattern(spec)}`);
        }
        return value;
      }
      case 'array': {
        if (value === undefined) return spec.keepAbsent === true ? undefined : Object.freeze([]);
        if (!Array.isArray(value)) return this.fail(path, 'type', `must be a list, got ${kindOf(value)}`);
        if (spec.maxItems !== undefined && value.length > spec.maxItems) return this.fail(path, 'maxItems', `holds at most ${spec.maxItems} entries`);
        const before = this.errors.length;
        const out = value.map((item, i) => this.value(spec.items, item, `${path}[${i}]`));
        if (this.errors.length !== before) return undefined;
        if (spec.uniqueItems === true) {
          const seen = new Set<string>();
          for (const [i, item] of value.entries()) {
            const key = JSON.stringify(item);
            if (seen.has(key)) return this.fail(`${path}[${i}]`, 'uniqueItems', `${show(item)} is listed twice`);
            seen.add(key);
          }
        }
        return Object.freeze(out);
      }
      case 'object': {
        if (value === undefined) value = {};
        if (typeof value !== 'object' || value === null || Array.isArray(value)) return this.fail(path, 'type', `must be an object, got ${kindOf(value)}`);
        const record = value as Record<string, unknown>;
        const out: Record<string, unknown> = {};
        for (const [key, child] of Object.entries(spec.properties)) {
          const childPath = path === '' ? key : `${path}.${key}`;
          if (child.required === true && record[key] === undefined) {
            this.fail(childPath, 'required', 'is required');
            continue;
          }
          out[key] = this.value(child, record[key], childPath);
        }
        for (const key of Object.keys(record)) {
          if (Object.hasOwn(spec.properties, key) || (path === '' && HOMEBRIDGE_KEYS.has(key))) continue;
          const where = path === '' ? key : `${path}.${key}`;
          this.warnings.push({ path: where, rule: 'additionalProperties', message: `${where}: unknown option, ignored` });
        }
        return Object.freeze(out);
      }
    }
  }
}

function describePattern(spec: StringSpec): string {
  switch (spec.pattern) {
    case PATTERNS.ipv4:
      return 'an IPv4 address like 192.168.1.255';
    case PATTERNS.hostPort:
      return 'an IPv4 address with an optional :port, like 10.0.20.31 or 10.0.20.31:56700';
    case PATTERNS.subnet:
      return 'a subnet from /22 to /30, like 10.0.20.0/24';
    case PATTERNS.serial:
      return 'a serial of 12 hex digits, like d073d5001337';
    case PATTERNS.partName:
      return 'a part name: a letter, then 1-31 letters, digits or _ (like left or shelf_2)';
    case PATTERNS.bindHost:
      return 'an IPv4 address, localhost, ::1 or ::';
    default:
      return `text matching ${spec.pattern}`;
  }
}

/** Checks a platform block from config.json. Errors stop the platform; warnings (unknown keys) are only logged. */
export function parseConfig(raw: unknown): ConfigResult {
  const walker = new Walker();
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { ok: false, errors: [{ path: '(platform block)', rule: 'type', message: `the platform block must be an object, got ${kindOf(raw)}` }], warnings: [] };
  }
  const config = walker.value(CONFIG_SPEC, raw, '');
  const serials = new Set<string>();
  if (walker.errors.length === 0) {
    for (const [i, entry] of (config as LightwireConfig).accessories.entries()) {
      const serial = entry.serial.toLowerCase();
      // Not in the schema (JSON Schema cannot compare fields of list entries): the same light twice is a warning.
      if (serials.has(serial)) {
        walker.warnings.push({ path: `accessories[${i}].serial`, rule: 'uniqueItems', message: `accessories[${i}].serial: ${serial} is listed twice; the first entry counts` });
      }
      serials.add(serial);
    }
  }
  if (walker.errors.length > 0) return { ok: false, errors: walker.errors, warnings: walker.warnings };
  const scenes = (config as LightwireConfig).scenes;
  // Valid on its own (JSON Schema cannot tie one option to another), but scene switches come from the scene file:
  // without one there are none, and nothing else would say so.
  if (scenes.switches && scenes.file === undefined) {
    walker.warnings.push({
      path: 'scenes.file',
      rule: 'required',
      message: 'scenes.file: scenes.switches is on but no scene file is set, so there are no scene switches; set scenes.file (e.g. "lightwire-scenes.json")',
    });
  }
  return { ok: true, config: config as LightwireConfig, warnings: walker.warnings };
}

// ---- config.schema.json ----

type JsonSchema = { readonly [key: string]: unknown };

function schemaOf(spec: Spec): JsonSchema {
  const doc = { title: spec.title, ...(spec.description === undefined ? {} : { description: spec.description }) };
  switch (spec.type) {
    case 'boolean':
      return { type: 'boolean', ...doc, default: spec.default };
    case 'number':
    case 'integer':
      return { type: spec.type, ...doc, minimum: spec.minimum, maximum: spec.maximum, ...(spec.default === undefined ? {} : { default: spec.default }) };
    case 'string':
      return {
        type: 'string',
        ...doc,
        ...(spec.enum === undefined ? {} : { enum: [...spec.enum] }),
        ...(spec.minLength === undefined ? {} : { minLength: spec.minLength }),
        ...(spec.maxLength === undefined ? {} : { maxLength: spec.maxLength }),
        ...(spec.pattern === undefined ? {} : { pattern: spec.pattern }),
        ...(spec.default === undefined ? {} : { default: spec.default }),
        ...(spec.placeholder === undefined ? {} : { placeholder: spec.placeholder }),
      };
    case 'array':
      return {
        type: 'array',
        ...doc,
        items: schemaOf(spec.items),
        ...(spec.maxItems === undefined ? {} : { maxItems: spec.maxItems }),
        ...(spec.uniqueItems === undefined ? {} : { uniqueItems: spec.uniqueItems }),
      };
    case 'object': {
      const required = Object.entries(spec.properties).filter(([, s]) => s.required === true).map(([k]) => k);
      return {
        type: 'object',
        ...doc,
        properties: Object.fromEntries(Object.entries(spec.properties).map(([k, s]) => [k, schemaOf(s)])),
        ...(required.length === 0 ? {} : { required }),
      };
    }
  }
}

/** The content of config.schema.json (https://developers.homebridge.io/#/config-schema). */
export function configSchema(): JsonSchema {
  return {
    pluginAlias: PLATFORM_NAME,
    pluginType: 'platform',
    singular: true,
    headerDisplay:
      'LIFX lights on your network, controlled locally. Lights are found by themselves; the settings below are for ' +
      'networks where broadcasts do not reach them, and for effects, scenes and the HTTP API.',
    footerDisplay: 'See the plugin README for every option.',
    schema: schemaOf(CONFIG_SPEC),
  };
}

// ---- from the config to the service ----

/** The LightService options a config asks for. `storagePath` is Homebridge's storage folder (scene files). */
export function serviceOptions(config: LightwireConfig, storagePath: string): LightServiceOptions {
  const d = config.discovery;
  const discovery: DiscoveryOptionsInput = {
    port: d.port,
    refreshIntervalMs: Math.round(d.refreshIntervalS * 1000),
    offlineAfterMisses: d.offlineAfterMisses,
    ...(d.broadcastAddresses.length > 0 ? { broadcastAddresses: d.broadcastAddresses } : {}),
    ...(d.staticHosts.length > 0 ? { staticHosts: d.staticHosts } : {}),
    ...(d.sweepSubnets.length > 0 ? { sweepSubnets: d.sweepSubnets } : {}),
  };
  const file = config.scenes.file;
  const products = d.productsFile;
  const segments = config.accessories.filter((a) => a.segments.length > 0);
  return {
    discovery,
    defaultDurationS: config.lights.transitionS,
    ...(segments.length === 0 ? {} : { parts: Object.fromEntries(segments.map((a) => [a.serial.toLowerCase(), a.segments])) }),
    ...(file === undefined ? {} : { scenes: path.resolve(storagePath, file) }),
    // A products file that cannot be used is the service's `error` event (logged), never a stopped platform.
    ...(products === undefined ? {} : { products: path.resolve(storagePath, products) }),
  };
}

/** The settings for one light: its own entry over the platform's. */
export interface LightSettings {
  readonly hidden: boolean;
  readonly transitionS: number;
  readonly effects: readonly EffectKind[];
  readonly themes: readonly string[];
}

export function lightSettings(config: LightwireConfig, serial: string): LightSettings {
  const own = config.accessories.find((a) => a.serial.toLowerCase() === serial.toLowerCase());
  return Object.freeze({
    hidden: own?.hidden ?? false,
    transitionS: own?.transitionS ?? config.lights.transitionS,
    effects: own?.effects ?? config.lights.effects,
    themes: own?.themes ?? config.lights.themes,
  });
}

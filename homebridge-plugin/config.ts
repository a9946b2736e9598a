// The platform's configuration: one table of options. It drives the runtime parser (Homebridge hands the
// platform `Record<string, any>`, hand-edited JSON included) and generates config.schema.json, the form the
// Homebridge UI shows; test/homebridge-plugin/config.test.ts keeps the committed file equal to `configSchema()` and
// checks that the schema (through ajv) and the parser accept and reject the same documents.

import path from 'node:path';
import { FIRMWARE_EFFECTS, LIFX_PORT, PART_NAME_PATTERN, PORT_MAX, THEME_NAMES, type DiscoveryOptionsInput, type FirmwareEffectName, type LightServiceOptions } from '../core/index.js';
import { PLATFORM_NAME } from './settings.js';

// ---- the table's vocabulary (a subset of JSON Schema draft-07 that both sides implement) ----

interface Doc {
  readonly title: string;
  readonly description?: string;
  /** Set on a property that must be present (becomes the parent object's `required` list). */
  readonly required?: true;
}

export interface BooleanSpec extends Doc {
  readonly type: 'boolean';
  readonly default: boolean;
}

export interface NumberSpec extends Doc {
  readonly type: 'number' | 'integer';
  readonly minimum: number;
  readonly maximum: number;
  readonly default?: number;
}

export interface StringSpec extends Doc {
  readonly type: 'string';
  readonly pattern?: string;
  readonly enum?: readonly string[];
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly default?: string;
  /** Shown in an empty field of the UI form. */
  readonly placeholder?: string;
}

export interface ArraySpec extends Doc {
  readonly type: 'array';
  readonly items: StringSpec | ObjectSpec;
  readonly maxItems?: number;
  readonly uniqueItems?: boolean;
  /** Absent parses as `undefined` (so an empty list can mean "none"); otherwise as `[]`. */
  readonly keepAbsent?: true;
}

export interface ObjectSpec extends Doc {
  readonly type: 'object';
  readonly properties: Readonly<Record<string, Spec>>;
}

export type Spec = BooleanSpec | NumberSpec | StringSpec | ArraySpec | ObjectSpec;

/** What the parser returns for a spec: defaults filled in, optional values `undefined`, arrays `[]` when absent. */
export type Parsed<S> = S extends BooleanSpec
  ? boolean
  : S extends NumberSpec
    ? S extends { readonly default: number } | { readonly required: true } ? number : number | undefined
    : S extends StringSpec
      ? (S extends { readonly enum: readonly (infer E)[] } ? E : string) extends infer V
        ? S extends { readonly default: string } | { readonly required: true } ? V : V | undefined
        : never
      : S extends { readonly type: 'array'; readonly items: infer I }
        ? S extends { readonly keepAbsent: true } ? readonly NonNullable<Parsed<I>>[] | undefined : readonly NonNullable<Parsed<I>>[]
        : S extends { readonly type: 'object'; readonly properties: infer P }
          ? { readonly [K in keyof P]: Parsed<P[K]> }
          : never;

// ---- patterns shared by the schema and the parser ----

const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
const IPV4 = `${OCTET}(?:\\.${OCTET}){3}`;
const PORT = '(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3})';

export const PATTERNS = Object.freeze({
  ipv4: `^${IPV4}$`,
  hostPort: `^${IPV4}(?::${PORT})?$`,
  /** The core sweeps /22 to /30 (at most 1022 hosts a subnet). */
  subnet: `^${IPV4}/(?:2[2-9]|30)$`,
  serial: '^[0-9A-Fa-f]{12}$',
  bindHost: `^(?:${IPV4}|localhost|::1|::)$`,
  /** A part name, as selectors take it (core/control/parts.ts). */
  partName: PART_NAME_PATTERN,
});

/** Firmware effects a light can run, from the service's catalogue, each needing a capability (lights without it are left out). */
export const EFFECT_KINDS: readonly FirmwareEffectName[] = FIRMWARE_EFFECTS;
export type EffectKind = FirmwareEffectName;

const effectList = {
  type: 'array',
  title: 'Effect switches',
  description:
    'Firmware effects offered as Switches on the lights that can run them: move (strips and beams), morph, flame, ' +
    'clouds, sunrise, sunset (tiles, candles, ceilings). Turning a switch off stops the effect.',
  items: { type: 'string', title: 'Effect', enum: EFFECT_KINDS },
  uniqueItems: true,
} as const satisfies ArraySpec;

/** Themes (the service's palette file) offered as momentary Switches: on paints the theme, then falls back to Off. */
const themeList = {
  type: 'array',
  title: 'Theme switches',
  description: 'Themes offered as Switches on every light (zones of strips and pixels of matrix lights get the whole palette). A theme switch is momentary.',
  items: { type: 'string', title: 'Theme', enum: THEME_NAMES },
  uniqueItems: true,
} as const satisfies ArraySpec;

const transition = (title: string) =>
  ({ type: 'number', title, description: 'Seconds a change fades over (0 = at once).', minimum: 0, maximum: 3600 }) as const;

export const CONFIG_SPEC = {
  type: 'object',
  title: 'Lightwire',
  properties: {
    name: { type: 'string', title: 'Name', description: 'Shown in the Homebridge log.', default: PLATFORM_NAME, minLength: 1 },
    discovery: {
      type: 'object',
      title: 'Discovery',
      description: 'How lights are found. Without settings here, a broadcast on every network interface finds lights on this subnet.',
      properties: {
        broadcastAddresses: {
          type: 'array',
          title: 'Broadcast addresses',
          description: 'Where the discovery broadcast goes instead of every interface (e.g. 192.168.1.255).',
          items: { type: 'string', title: 'IPv4 broadcast address', pattern: PATTERNS.ipv4, placeholder: '192.168.1.255' },
          uniqueItems: true,
        },
        port: { type: 'integer', title: 'LAN port', description: 'The UDP port lights listen on.', minimum: 1, maximum: PORT_MAX, default: LIFX_PORT },
        staticHosts: {
          type: 'array',
          title: 'Lights by address',
          description: 'Lights behind a router or on another VLAN, asked directly: ip or ip:port.',
          items: { type: 'string', title: 'Address', pattern: PATTERNS.hostPort, placeholder: '10.0.20.31' },
          uniqueItems: true,
        },
        sweepSubnets: {
          type: 'array',
          title: 'Subnets to sweep',
          description: 'Subnets asked host by host (CIDR, /22 to /30), for lights that broadcasts do not reach.',
          items: { type: 'string', title: 'Subnet', pattern: PATTERNS.subnet, placeholder: '10.0.20.0/24' },
          uniqueItems: true,
        },
        refreshIntervalS: {
          type: 'number',
          title: 'Refresh interval',
          description: 'Seconds between background reads of each light, so changes made elsewhere reach HomeKit.',
          minimum: 1,
          maximum: 3600,
          default: 10,
        },
        offlineAfterMisses: {
          type: 'integer',
          title: 'Offline after missed reads',
          description: 'Consecutive unanswered reads before a light counts as unreachable (one miss is not "offline"; a request that times out while the light answers others is none).',
          minimum: 1,
          maximum: 20,
          default: 3,
        },
        productsFile: {
          type: 'string',
          title: 'Products file',
          description:
            'A newer products.json from LIFX (github.com/LIFX/products), for lights newer than this plugin: their names and colour temperatures. ' +
            'Relative paths start in the Homebridge storage folder. A file that cannot be used is logged and the bundled products are used.',
          minLength: 1,
          placeholder: 'products.json',
        },
        removeAfterHours: {
          type: 'integer',
          title: 'Remove unseen lights after (hours)',
          description: 'A light not seen for this many whole hours is removed from HomeKit (0 = never); it comes back when it is seen again.',
          minimum: 0,
          maximum: 87600,
          default: 168,
        },
      },
    },
    lights: {
      type: 'object',
      title: 'Lights',
      properties: {
        transitionS: { ...transition('Transition time'), default: 0.5 },
        mergeWindowMs: {
          type: 'integer',
          title: 'Merge window (ms)',
          description: 'HomeKit sends power, brightness, hue and saturation as separate writes; writes this close together become one change.',
          minimum: 0,
          maximum: 1000,
          default: 30,
        },
        responseTimeoutMs: {
          type: 'integer',
          title: 'Answer HomeKit within (ms)',
          description: 'A light that has not confirmed a change by then is reported as "No Response"; other lights are never held up.',
          minimum: 100,
          maximum: 5000,
          default: 1000,
        },
        unreachableAsOff: {
          type: 'boolean',
          title: 'Show unreachable lights as Off',
          description: 'For lights switched off at the wall: Off instead of "No Response".',
          default: false,
        },
        adaptiveLighting: {
          type: 'boolean',
          title: 'Adaptive Lighting',
          description: 'Offer Adaptive Lighting on lights with an adjustable colour temperature.',
          default: true,
        },
        nightVision: {
          type: 'boolean',
          title: 'Night vision',
          description: 'A second light tile for the infrared level of night-vision lights.',
          default: true,
        },
        ambientLight: {
          type: 'boolean',
          title: 'Ambient light sensor',
          description:
            'A light sensor tile for lights with an ambient light sensor: its raw reading in lux, not calibrated, and best with the light off (lit, it mostly measures itself). ' +
            'With the matter option, also a Matter Light Sensor.',
          default: false,
        },
        parts: {
          type: 'boolean',
          title: 'Parts as lights',
          description:
            'A Lightbulb for each part of a light besides the light itself: the downlight and uplight of a LIFX Ceiling, the front and rear of a Mirror, and the segments named per light below. With the matter option, also a Matter light per part.',
          default: true,
        },
        effects: effectList,
        themes: themeList,
      },
    },
    accessories: {
      type: 'array',
      title: 'Per light',
      description: 'Settings for single lights, by serial number (12 hex digits, as printed on the light).',
      items: {
        type: 'object',
        title: 'Light',
        properties: {
          serial: { type: 'string', title: 'Serial', pattern: PATTERNS.serial, required: true, placeholder: 'd073d5001337' },
          hidden: { type: 'boolean', title: 'Hide from HomeKit', default: false },
          transitionS: transition('Transition time'),
          effects: { ...effectList, description: 'Replaces the effect switches chosen for all lights (an empty list: none).', keepAbsent: true },
          themes: { ...themeList, description: 'Replaces the theme switches chosen for all lights (an empty list: none).', keepAbsent: true },
          segments: {
            type: 'array',
            title: 'Segments',
            description: 'Cuts a strip into equal segments, each its own Lightbulb and a part in selectors (`id:SERIAL|left`): their names, in zone order.',
            items: { type: 'string', title: 'Segment name', pattern: PATTERNS.partName, placeholder: 'left' },
            maxItems: 16,
            uniqueItems: true,
          },
        },
      },
    },
    scenes: {
      type: 'object',
      title: 'Scenes',
      properties: {
        file: {
          type: 'string',
          title: 'Scene file',
          description: 'Where scenes are stored (relative paths start in the Homebridge storage folder). Shared with `lightwire serve`.',
          minLength: 1,
          placeholder: 'lightwire-scenes.json',
        },
        switches: { type: 'boolean', title: 'Scenes as switches', description: 'One switch per scene on a "Lightwire Scenes" accessory.', default: false },
        fadeS: { ...transition('Scene fade'), default: 1 },
        fades: {
          type: 'array',
          title: 'Fade per scene',
          items: {
            type: 'object',
            title: 'Scene',
            properties: {
              scene: { type: 'string', title: 'Scene name or id', minLength: 1, required: true },
              fadeS: { ...transition('Fade'), required: true },
            },
          },
        },
      },
    },
    matter: {
      type: 'boolean',
      title: 'Matter',
      description:
        'Also offer every light as a Matter device (Google Home, Alexa, SmartThings, Apple Home) through Homebridge 2\'s ' +
        'Matter bridge; needs Matter on for this bridge. HomeKit keeps the lights as before.',
      default: false,
    },
    http: {
      type: 'object',
      title: 'HTTP API',
      description: 'The local LIFX HTTP API v1 (same lights, same rules) beside Homebridge.',
      properties: {
        enabled: { type: 'boolean', title: 'Serve the HTTP API', default: false },
        host: {
          type: 'string',
          title: 'Listen on',
          description: 'Anything but loopback needs at least one token.',
          pattern: PATTERNS.bindHost,
          default: '127.0.0.1',
        },
        port: { type: 'integer', title: 'Port', minimum: 1, maximum: PORT_MAX, default: 3000 },
        tokens: {
          type: 'array',
          title: 'Tokens',
          description: 'Bearer tokens clients must send, optionally with scopes: TOKEN or TOKEN:scope,scope. Beyond 127.0.0.1 each must have 16 characters at least.',
          items: { type: 'string', title: 'Token', minLength: 1 },
        },
      },
    },
  },
} as const satisfies ObjectSpec;

export type LightwireConfig = Parsed<typeof CONFIG_SPEC>;
export type AccessoryConfig = LightwireConfig['accessories'][number];

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

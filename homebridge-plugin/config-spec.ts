// The platform's options as one table (a subset of JSON Schema draft-07): config.ts parses a platform block with
// it and generates config.schema.json from it, so the form the Homebridge UI shows and the runtime parser never
// disagree.

import { FIRMWARE_EFFECTS, LIFX_PORT, PART_NAME_PATTERN, PORT_MAX, THEME_NAMES, type FirmwareEffectName } from '../core/index.js';
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
          description: 'How long turning on a light that is off waits for a colour sent separately, so it never shows its old colour first. Every other write goes out at once (the writes of one HomeKit request as one change).',
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

// A stand-in for the Homebridge API around the real HAP-NodeJS and Homebridge's own PlatformAccessory, so the
// platform runs in-process against virtual lights: no HAP server, no mDNS (those run only in e2e.test.ts).

import { EventEmitter } from 'node:events';
import * as hap from '@homebridge/hap-nodejs';
import type { API, Characteristic, HAP, Logging, PlatformAccessory as PlatformAccessoryType, PlatformConfig, Service } from 'homebridge';
import { PlatformAccessory } from '../../node_modules/homebridge/dist/platformAccessory.js';
import { LightService, type LightServiceOptions } from '../../core/index.js';
import { Fleet, type FleetInput } from '../../core/simulator/index.js';
import { LightwirePlatform, type PlatformDeps } from '../../homebridge-plugin/platform.js';

export const HAP_MODULE = hap as unknown as HAP;

export interface LogLine {
  readonly level: 'info' | 'warn' | 'error' | 'debug' | 'success';
  readonly text: string;
}

export interface TestLog {
  readonly log: Logging;
  readonly lines: LogLine[];
  text(level?: LogLine['level']): string;
}

export function testLog(): TestLog {
  const lines: LogLine[] = [];
  const at = (level: LogLine['level']) => (message: string, ...params: unknown[]) => {
    lines.push({ level, text: [message, ...params].map(String).join(' ') });
  };
  const log = Object.assign(at('info'), {
    prefix: 'Lightwire',
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    debug: at('debug'),
    success: at('success'),
    log: (level: LogLine['level'], message: string) => at(level)(message),
  });
  return {
    log: log as unknown as Logging,
    lines,
    text: (level) => lines.filter((l) => level === undefined || l.level === level).map((l) => l.text).join('\n'),
  };
}

export interface FakeApi {
  readonly api: API;
  readonly registered: PlatformAccessoryType[];
  readonly unregistered: PlatformAccessoryType[];
  updates: number;
  readonly events: EventEmitter;
}

export function fakeApi(storagePath = '/tmp/lightwire-hb-test'): FakeApi {
  const events = new EventEmitter();
  const fake: FakeApi = { api: undefined as unknown as API, registered: [], unregistered: [], updates: 0, events };
  const api = {
    hap: HAP_MODULE,
    platformAccessory: PlatformAccessory,
    user: { storagePath: () => storagePath },
    version: 2.7,
    serverVersion: '2.4.0',
    on: (event: string, listener: (...args: unknown[]) => void) => events.on(event, listener),
    registerPlatformAccessories: (_plugin: string, _platform: string, accessories: PlatformAccessoryType[]) => {
      fake.registered.push(...accessories);
    },
    updatePlatformAccessories: () => {
      fake.updates++;
    },
    unregisterPlatformAccessories: (_plugin: string, _platform: string, accessories: PlatformAccessoryType[]) => {
      fake.unregistered.push(...accessories);
    },
  };
  (fake as { api: API }).api = api as unknown as API;
  return fake;
}

/** Virtual lights on a free port, only on loopback. */
export async function startFleet(input: FleetInput): Promise<Fleet> {
  const fleet = new Fleet(input, { port: 0 });
  await fleet.start();
  return fleet;
}

/** Service options that find a fleet quickly and give up on silent lights fast. */
export function fleetServiceOptions(fleet: Fleet, overrides: Partial<LightServiceOptions> = {}): (options: LightServiceOptions) => LightService {
  return (options) =>
    new LightService({
      ...options,
      discovery: {
        ...options.discovery,
        broadcastAddresses: ['127.255.255.255'],
        port: fleet.port,
        burstScheduleMs: [0, 200, 600],
        readTimeoutMs: 400,
      },
      deadlineMs: 600,
      readyTimeoutMs: 3000,
      ...overrides,
    });
}

export interface PlatformRig {
  readonly platform: LightwirePlatform;
  readonly fake: FakeApi;
  readonly log: TestLog;
  close(): Promise<void>;
}

export async function platformRig(config: Record<string, unknown>, fleet: Fleet, options: { deps?: PlatformDeps; cached?: PlatformAccessoryType[]; launch?: boolean } = {}): Promise<PlatformRig> {
  const fake = fakeApi();
  const log = testLog();
  const platform = new LightwirePlatform(log.log, { platform: 'Lightwire', ...config } as PlatformConfig, fake.api, {
    createService: fleetServiceOptions(fleet),
    ...options.deps,
  });
  for (const accessory of options.cached ?? []) platform.configureAccessory(accessory);
  if (options.launch !== false) await platform.launch();
  return { platform, fake, log, close: () => platform.shutdown() };
}

export function lightbulbOf(accessory: PlatformAccessoryType, subtype?: string): Service {
  const service = accessory.services.find((s) => s.UUID === hap.Service.Lightbulb.UUID && s.subtype === subtype);
  if (service === undefined) throw new Error(`${accessory.displayName} has no Lightbulb${subtype ? ` (${subtype})` : ''}`);
  return service;
}

export function characteristic(service: Service, name: 'On' | 'Brightness' | 'Hue' | 'Saturation' | 'ColorTemperature' | 'Name'): Characteristic {
  const type = hap.Characteristic[name];
  if (!service.testCharacteristic(type)) throw new Error(`${service.displayName} has no ${name}`);
  return service.getCharacteristic(type);
}

export function has(service: Service, name: 'On' | 'Brightness' | 'Hue' | 'Saturation' | 'ColorTemperature'): boolean {
  return service.testCharacteristic(hap.Characteristic[name]);
}

/** HAP-NodeJS rejects get and set requests with the bare status number. */
function statusOf(err: unknown): number {
  if (typeof err === 'number') return err;
  const status = (err as { hapStatus?: unknown }).hapStatus;
  if (typeof status === 'number') return status;
  throw err;
}

/** A characteristic read the way HAP serves a GET: through onGet, a HapStatusError becomes its status. */
export async function hapRead(c: Characteristic): Promise<{ value?: unknown; status?: number }> {
  try {
    return { value: await c.handleGetRequest() };
  } catch (err) {
    return { status: statusOf(err) };
  }
}

/** A characteristic write the way HAP serves a PUT: through onSet. */
export async function hapWrite(c: Characteristic, value: boolean | number): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  try {
    await c.handleSetRequest(value);
    return { status: 0, ms: performance.now() - started };
  } catch (err) {
    return { status: statusOf(err), ms: performance.now() - started };
  }
}

export const COMMUNICATION_FAILURE = hap.HAPStatus.SERVICE_COMMUNICATION_FAILURE;

/**
 * HAP-NodeJS's "invalid 'Name'" warnings (it writes them with console.warn when an accessory or service is named)
 * while `work` runs. Other console.warn output passes through.
 */
export async function hapNameWarnings(work: () => Promise<void> | void): Promise<string[]> {
  const warnings: string[] = [];
  const original = console.warn;
  console.warn = (...args: unknown[]) => {
    const text = args.map(String).join(' ');
    if (text.includes("invalid 'Name'")) warnings.push(text);
    else original(...args);
  };
  try {
    await work();
  } finally {
    console.warn = original;
  }
  return warnings;
}

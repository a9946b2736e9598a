// Discovery options: validated once, frozen, units in the names.

import os from 'node:os';
import { isIPv4, MAX_TIMER_MS } from '../builtins.js';
import { LightwireError } from '../errors.js';
import { unknownOption } from '../text.js';
import { LIFX_PORT, PORT_MAX } from '../protocol/limits.js';

export { LIFX_PORT };


export interface StaticHost {
  readonly address: string;
  readonly port: number;
}

export interface DiscoveryOptions {
  /** Where GetService is broadcast. Default: the broadcast address of each IPv4 interface. */
  readonly broadcastAddresses: readonly string[];
  /**
   * No addresses were given: each discovery round broadcasts on the interfaces as they are then (a host that starts
   * before its network is up, or moves to another network, is followed). broadcastAddresses is the list at start.
   */
  readonly followInterfaces: boolean;
  /** The port lights listen on for broadcasts. */
  readonly port: number;
  /** Lights behind routers or on other VLANs, probed by unicast GetService (`ip[:port]`). */
  readonly staticHosts: readonly StaticHost[];
  /** Subnets swept host by host with unicast GetService (CIDR, at most /22 each). */
  readonly sweepSubnets: readonly string[];
  /** Offsets of the start-up burst of broadcasts (one broadcast found a median of 48 of 73 bulbs, a schedule 72-73). */
  readonly burstScheduleMs: readonly number[];
  /** After the burst, one broadcast (and static-host probe) this often. */
  readonly heartbeatMs: number;
  /** How often the subnets are swept again. */
  readonly sweepIntervalMs: number;
  /** How often each light's state (colour, power, label) is read in the background; 0 turns refresh off. */
  readonly refreshIntervalMs: number;
  /** How often slow-changing facts (firmware, group, location, wifi, uptime) are read again. */
  readonly infoRefreshIntervalMs: number;
  /**
   * Consecutive failed reads before a light is marked offline (one miss is not "offline"). A read or
   * write that times out while the light answers our other requests is no miss (LightClient.missedSince).
   */
  readonly offlineAfterMisses: number;
  /** Deadline of one background read. */
  readonly readTimeoutMs: number;
  /**
   * The most lights the registry holds: replies beyond it are ignored (and said once), so a flood of invented
   * serials cannot grow it without end. A real LAN has at most a few hundred.
   */
  readonly maxLights: number;
}

export const DEFAULT_MAX_LIGHTS = 2048;

export const DEFAULT_BURST_SCHEDULE_MS = Object.freeze([0, 600, 1800, 3600, 5600, 7600]);

export function interfaceBroadcastAddresses(
  interfaces: NodeJS.Dict<os.NetworkInterfaceInfo[]> = os.networkInterfaces(),
): string[] {
  const out = new Set<string>();
  for (const infos of Object.values(interfaces)) {
    for (const info of infos ?? []) {
      if (info.family !== 'IPv4' || info.internal) continue;
      const addr = ipv4ToInt(info.address);
      const mask = ipv4ToInt(info.netmask);
      out.add(intToIpv4((addr | ~mask) >>> 0));
    }
  }
  return [...out];
}

export function ipv4ToInt(address: string): number {
  return address.split('.').reduce((acc, part) => ((acc << 8) | Number(part)) >>> 0, 0);
}

export function intToIpv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => (value >>> shift) & 0xff).join('.');
}

function invalid(option: string, reason: string): never {
  throw new LightwireError('OPTIONS_INVALID', { option, reason });
}

export function parseHost(text: string, defaultPort = LIFX_PORT): StaticHost {
  const match = /^([^:]+)(?::(\d+))?$/.exec(text.trim());
  const address = match?.[1] ?? '';
  const port = match?.[2] === undefined ? defaultPort : Number(match[2]);
  if (!isIPv4(address)) invalid('staticHosts', `entry ${JSON.stringify(text)} is not an IPv4 address with an optional :port`);
  if (!Number.isInteger(port) || port < 1 || port > PORT_MAX) invalid('staticHosts', `entry ${JSON.stringify(text)} has a bad port`);
  return Object.freeze({ address, port });
}

/** The host addresses of a CIDR subnet (network and broadcast addresses excluded). */
export function subnetHosts(cidr: string): string[] {
  const match = /^(\d+\.\d+\.\d+\.\d+)\/(\d+)$/.exec(cidr.trim());
  if (!match || !isIPv4(match[1]!)) invalid('sweepSubnets', `${JSON.stringify(cidr)} is not a CIDR subnet like 172.20.4.0/24`);
  const bits = Number(match[2]);
  if (bits < 22 || bits > 30) invalid('sweepSubnets', `${cidr}: prefix must be /22 to /30 (at most 1022 hosts per subnet)`);
  const size = 2 ** (32 - bits);
  const network = (ipv4ToInt(match[1]!) & ~(size - 1)) >>> 0;
  return Array.from({ length: size - 2 }, (_, i) => intToIpv4(network + 1 + i));
}

/** An integer from `min`; a duration (a name in ms) at most MAX_TIMER_MS, which a timer can wait. */
function intAtLeast(name: string, value: unknown, min: number): number {
  const max = /Ms(\[\d+\])?$/.test(name) ? MAX_TIMER_MS : Number.MAX_SAFE_INTEGER;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    invalid(name, max === MAX_TIMER_MS ? `must be an integer from ${min} to ${MAX_TIMER_MS} (ms)` : `must be an integer >= ${min}`);
  }
  return value;
}

/** A list option: an array (of strings), or OPTIONS_INVALID naming it. */
function listOf<T>(name: string, value: unknown, fallback: readonly T[], item: 'string' | 'number' | 'host'): readonly T[] {
  if (value === undefined) return fallback;
  if (!Array.isArray(value)) invalid(name, `must be a list, got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`);
  (value as unknown[]).forEach((v, i) => {
    const ok = item === 'host' ? typeof v === 'string' || (typeof v === 'object' && v !== null) : typeof v === item;
    if (!ok) invalid(`${name}[${i}]`, `must be ${item === 'host' ? 'an "ip[:port]" string or { address, port }' : `a ${item}`}, got ${String(v)}`);
  });
  return value as T[];
}

export interface DiscoveryOptionsInput extends Partial<Omit<DiscoveryOptions, 'staticHosts' | 'followInterfaces'>> {
  /** `ip[:port]` strings or parsed hosts. */
  readonly staticHosts?: readonly (string | StaticHost)[];
}

export function discoveryOptions(input: DiscoveryOptionsInput = {}): DiscoveryOptions {
  if (typeof input !== 'object' || input === null) invalid('discovery', 'must be an object');
  const broadcastAddresses = input.broadcastAddresses === undefined ? interfaceBroadcastAddresses() : listOf<string>('broadcastAddresses', input.broadcastAddresses, [], 'string');
  for (const a of broadcastAddresses) if (!isIPv4(a)) invalid('broadcastAddresses', `${JSON.stringify(a)} is not an IPv4 address`);
  const port = intAtLeast('port', input.port ?? LIFX_PORT, 1);
  // A host without its own port uses the discovery port.
  const staticHosts = listOf<string | StaticHost>('staticHosts', input.staticHosts, [], 'host').map((h) => (typeof h === 'string' ? parseHost(h, port) : parseHost(`${h.address}:${h.port}`)));
  const sweepSubnets = listOf<string>('sweepSubnets', input.sweepSubnets, [], 'string');
  sweepSubnets.forEach(subnetHosts);
  const burst = listOf<number>('burstScheduleMs', input.burstScheduleMs, DEFAULT_BURST_SCHEDULE_MS, 'number');
  burst.forEach((v, i) => intAtLeast(`burstScheduleMs[${i}]`, v, 0));
  const o: DiscoveryOptions = {
    broadcastAddresses: Object.freeze([...broadcastAddresses]),
    followInterfaces: input.broadcastAddresses === undefined,
    port,
    staticHosts: Object.freeze(staticHosts),
    sweepSubnets: Object.freeze([...sweepSubnets]),
    burstScheduleMs: Object.freeze([...burst]),
    heartbeatMs: intAtLeast('heartbeatMs', input.heartbeatMs ?? 20_000, 100),
    sweepIntervalMs: intAtLeast('sweepIntervalMs', input.sweepIntervalMs ?? 300_000, 1000),
    refreshIntervalMs: intAtLeast('refreshIntervalMs', input.refreshIntervalMs ?? 10_000, 0),
    infoRefreshIntervalMs: intAtLeast('infoRefreshIntervalMs', input.infoRefreshIntervalMs ?? 300_000, 1000),
    offlineAfterMisses: intAtLeast('offlineAfterMisses', input.offlineAfterMisses ?? 3, 1),
    readTimeoutMs: intAtLeast('readTimeoutMs', input.readTimeoutMs ?? 3000, 1),
    maxLights: intAtLeast('maxLights', input.maxLights ?? DEFAULT_MAX_LIGHTS, 1),
  };
  if (o.port > PORT_MAX) invalid('port', `must be at most ${PORT_MAX}`);
  // A misspelt option would otherwise fall back to its default: `broadcastAddress` to every interface.
  const unknown = unknownOption(input, Object.keys(o).filter((k) => k !== 'followInterfaces'), 'a discovery');
  if (unknown) invalid(unknown.key, unknown.reason);
  return Object.freeze(o);
}

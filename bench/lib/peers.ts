// The Node peers the benchmarks measure next to Lightwire, and what it takes to run them on loopback. Each one keeps
// its defaults except where it would send beyond this machine or cannot share a port with the fleet; every datagram
// any of them sends still goes through guardLoopbackSends (net-guard.ts), which refuses anything outside 127.0.0.0/8.
//
// - lifx-lan-client 2.1.2: broadcast 127.255.255.255 (its default is the all-ones broadcast), an ephemeral port.
// - node-lifx 0.8.0 (lifx-lan-client's ancestor): the same, but it sends to the port it is bound to, so it binds
//   127.0.0.1:56700 (the fleet holds 127.0.0.2…:56700 and 127.255.255.255:56700).
// - node-lifx-lan 0.5.0: it broadcasts on the non-internal IPv4 interfaces (there are none in the namespace: it is
//   given loopback with 127.255.255.255) and binds port 56700 (it gets an ephemeral port; the lights answer the
//   sender's port). Its requests are matched by sequence number alone (1-254, shared by every light), so it is run
//   with at most NLL_IN_FLIGHT lights in flight, its best setting.

import dgram from 'node:dgram';
import { createRequire } from 'node:module';

export const BROADCAST = '127.255.255.255';
export const LIFX_PORT = 56700;

/** At most this many lights in flight with node-lifx-lan: its sequence numbers (1-254) are shared by every light. */
export const NLL_IN_FLIGHT = 20;

/**
 * Equal work (every light's label, version, host firmware, group, location, Wi-Fi info and state): at most this many
 * lights are read at once, by every client alike. The peers need it: lifx-lan-client and node-lifx match a reply by
 * its type and a sequence number (0-255) shared by every light, so more than 255 requests in flight (seven a light)
 * give one light's reply to another's request; node-lifx sends one message every 50 ms for the whole client and
 * times a request out 45 s after it was made, so requests for 500 lights made at once expire before they are sent;
 * node-lifx-lan matches by sequence number alone (and its requests are spaced, NLL_REQUEST_GAP_MS). The vendor asks for no more than 20 messages a second to one light
 * (https://lan.developer.lifx.com/docs/communicating-with-device).
 */
export const FACTS_IN_FLIGHT = 20;
/**
 * node-lifx-lan's calls are not paced: its getDeviceInfo() (what its discover() reads of each light, one light at a
 * time) waits this long between one light's requests, and equal work does the same.
 */
export const NLL_REQUEST_GAP_MS = 50;
/** Equal work: a light whose reads failed, or came back with another light's facts, is read up to this often in all. */
export const FACTS_ATTEMPTS = 5;

export const PEER_VERSIONS = { 'lifx-lan-client': '2.1.2', 'node-lifx': '0.8.0', 'node-lifx-lan': '0.5.0' } as const;

// lifx-lan-client and node-lifx are untyped JavaScript; this is the part of them the benchmarks use.
export type LlcCallback = (err: Error | null) => void;
export interface LlcState {
  readonly color: { hue: number; saturation: number; brightness: number; kelvin: number };
  readonly power: number;
  readonly label: string;
}
export interface LlcLight {
  readonly id: string;
  readonly client: LlcClient;
  getLabel(cb: (err: Error | null, label: string | null) => void): void;
  getHardwareVersion(cb: (err: Error | null, version: unknown) => void): void;
  getFirmwareVersion(cb: (err: Error | null, version: unknown) => void): void;
  getWifiInfo(cb: (err: Error | null, info: unknown) => void): void;
  color(hue: number, saturation: number, brightness: number, kelvin: number, duration: number, cb?: LlcCallback): void;
  on(duration: number, cb?: LlcCallback): void;
  getState(cb: (err: Error | null, state: LlcState | null) => void): void;
}
export interface LlcClient {
  devices: Record<string, LlcLight>;
  readonly source: string;
  /** Sends a packet (packet.create); returns its sequence number. */
  send(packet: unknown): number;
  /** Calls back with the reply of this type to the packet with this sequence number (or a timeout error). */
  addMessageHandler(type: string, cb: (err: Error | null, msg: Record<string, unknown> | null) => void, sequence: number): void;
  socket: { setRecvBufferSize(bytes: number): void };
  init(options: Record<string, unknown>, cb: () => void): void;
  on(event: 'light-new', cb: () => void): void;
  on(event: 'error', cb: (err: Error) => void): void;
  address(): { port: number } | null;
  destroy(): void;
}
export type LlcLibrary = 'lifx-lan-client' | 'node-lifx';

/** How lifx-lan-client or node-lifx is bound and where it broadcasts (see above). */
export function llcInitOptions(library: LlcLibrary): Record<string, unknown> {
  const bind = library === 'node-lifx' ? { address: '127.0.0.1', port: LIFX_PORT } : { address: '0.0.0.0', port: 0 };
  return { broadcast: BROADCAST, ...bind, startDiscovery: true };
}

export interface LlcPacketModule {
  create(type: string, params: Record<string, unknown>, source: string): Record<string, unknown>;
}

export function loadLlc(library: LlcLibrary, require: NodeJS.Require): { Client: new () => LlcClient; packet: LlcPacketModule } {
  return require(library) as { Client: new () => LlcClient; packet: LlcPacketModule };
}

// node-lifx-lan 0.5.0: promises, hue and saturation 0-1.
export interface NllColor {
  hue: number;
  saturation: number;
  brightness: number;
  kelvin: number;
}
export interface NllDevice {
  readonly ip: string;
  readonly mac: string;
  deviceGetLabel(): Promise<{ label: string }>;
  deviceGetVersion(): Promise<unknown>;
  deviceGetHostFirmware(): Promise<unknown>;
  deviceGetGroup(): Promise<unknown>;
  deviceGetLocation(): Promise<unknown>;
  deviceGetWifiInfo(): Promise<unknown>;
  lightGet(): Promise<{ color: NllColor; power: number; label: string }>;
  lightSetColor(p: { color: NllColor; duration: number }): Promise<unknown>;
  lightSetPower(p: { level: number; duration: number }): Promise<unknown>;
}
export interface NllModule {
  discover(p?: { wait?: number }): Promise<NllDevice[]>;
  createDevice(p: { ip: string; mac: string }): Promise<NllDevice>;
  destroy(): Promise<void>;
}

/** A serial as node-lifx-lan writes a MAC: d073d5000001 -> D0:73:D5:00:00:01. */
export function nllMac(serial: string): string {
  return serial.match(/../g)!.join(':').toUpperCase();
}

let nllPatched = false;

/** Loads node-lifx-lan with the two run-time patches described above (once per process). */
export function loadNll(require: NodeJS.Require = createRequire(__filename)): NllModule {
  if (!nllPatched) {
    nllPatched = true;
    const address = require('node-lifx-lan/lib/lifx-lan-address.js') as { getNetworkInterfaces: () => unknown[] };
    address.getNetworkInterfaces = () => [{ address: '127.0.0.1', netmask: '255.0.0.0', family: 'IPv4', internal: false, broadcast: BROADCAST }];
    const bind = dgram.Socket.prototype.bind as (...args: unknown[]) => unknown;
    (dgram.Socket.prototype as unknown as { bind: (...args: unknown[]) => unknown }).bind = function (this: dgram.Socket, ...args: unknown[]) {
      const first = args[0] as { port?: number } | undefined;
      if (typeof first === 'object' && first !== null && first.port === LIFX_PORT) args[0] = { ...first, port: 0 };
      return bind.apply(this, args);
    };
  }
  return require('node-lifx-lan') as NllModule;
}

/** Runs `job` over `items` with at most `limit` in flight. */
export async function pool<T>(items: readonly T[], limit: number, job: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await job(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

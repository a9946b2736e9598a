// A fleet of virtual lights on real UDP sockets (tests, demos, benchmarks).
//
// Address modes:
// - 'ip' (default): light i owns `baseAddress + i` (127.0.0.2, 127.0.0.3, …, skipping host octets 0 and 255)
//   on one port. A socket bound to 127.0.0.N does not receive broadcasts to 127.255.255.255, so one shared
//   listener takes discovery broadcasts and hands them to every light, and each light answers from its own
//   socket, hence from its own address (tests send packets to this machine only). On loopback the listener
//   binds the loopback broadcast address 127.255.255.255 itself, which receives broadcasts and nothing else: a
//   datagram unicast to an address no light owns (127.0.0.1, 127.0.0.99) finds nobody, as on a LAN, and
//   127.0.0.1:<port> stays free for a client that sends from the port it sends to (node-lifx binds 56700).
//   All these sockets use SO_REUSEADDR so they can share the port.
// - 'port': every light binds `baseAddress` (default 127.0.0.1) on its own port (port+1, port+2, … or, with
//   port 0, ports the system picks) and advertises it in StateService; the shared listener on 0.0.0.0:<port>
//   still answers broadcasts (and unicast to <port>), each light replying from its own socket so the source
//   port is the light's port.
//
// Port 0 picks a free port for the shared listener (and, in ip mode, the lights then share it): tests use it.
// Datagrams on the shared listener that name one serial go to that light only; a broadcast is handed to the
// lights in batches of FANOUT_BATCH with setImmediate between batches, so a client in the same process gets
// to drain its socket between bursts: 500 StateService replies sent at once overflow a default 208 KiB receive
// buffer (about 256 small datagrams), and libuv reads at most 32 datagrams per socket per loop iteration.

import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { LightwireError } from '../errors.js';
import { LIFX_PORT, PORT_MAX } from '../protocol/limits.js';
import { decode, type Packet } from '../protocol/codec.js';
import { BROADCAST_TARGET } from '../protocol/header.js';
import { allocateAddresses, isLoopbackIpv4, LOOPBACK_BROADCAST, parseIpv4 } from './addresses.js';
import { parseFleet, type FleetInput, type FleetSpec } from './fleet-file.js';
import { defaultRecordLimit } from './records.js';
import { VirtualLight, type LightEnvironment } from './virtual-light.js';

export type AddressMode = 'ip' | 'port';

export interface FleetOptions {
  readonly mode?: AddressMode;
  /** ip mode: the first light's address (default 127.0.0.2). port mode: every light's address (default 127.0.0.1). */
  readonly baseAddress?: string;
  /** The discovery port (and in ip mode every light's port); default 56700, 0 = pick a free one. */
  readonly port?: number;
  /**
   * Where the shared discovery listener binds. Default: ip mode on loopback, 127.255.255.255 (broadcasts only);
   * otherwise 0.0.0.0 (which also takes unicast to any address of this machine that no light owns).
   */
  readonly listenAddress?: string;
  /** Receive buffer of the shared listener, bytes (the kernel caps it at net.core.rmem_max). Default 4 MiB. */
  readonly recvBufferSize?: number;
  /** Clock in ms since the epoch; inject one to move transitions and rates in tests. Default Date.now. */
  readonly now?: () => number;
  /** Randomness for the probabilistic faults (loss each way, reordering), in [0, 1). Default Math.random. */
  readonly random?: () => number;
  /**
   * Packets kept per light (counts and rates cover all). Default: FLEET_RECORD_BUDGET (20 000) shared by the lights,
   * from 100 to 10 000 each (10 000 for fleets of up to 2 lights, 100 for 200 lights and more).
   */
  readonly recordLimit?: number;
  /** Errors caught in socket handlers (they never escape). Default: ignored, counted in `fleet.errors`. */
  readonly onError?: (err: unknown) => void;
}

export const DEFAULT_PORT = LIFX_PORT;
export const DEFAULT_IP_BASE = '127.0.0.2';
export const DEFAULT_PORT_MODE_ADDRESS = '127.0.0.1';
export const FANOUT_BATCH = 16;
const DEFAULT_RECV_BUFFER = 4 * 1024 * 1024;
const MAX_KEPT_ERRORS = 100;

type Timer = ReturnType<typeof setTimeout>;
type Immediate = ReturnType<typeof setImmediate>;

function bindError(err: unknown, address: string, port: number): LightwireError {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') return new LightwireError('ADDRESS_IN_USE', { address, port });
  // Each virtual light has a socket: a big fleet meets the process's limit on open files first.
  if (code === 'EMFILE' || code === 'ENFILE') {
    return new LightwireError('ADDRESS_UNAVAILABLE', { address, port, reason: `${code}: too many open files (one a light); raise the limit (ulimit -n) or run fewer lights` });
  }
  return new LightwireError('ADDRESS_UNAVAILABLE', { address, port, reason: code ?? String(err) });
}

export class Fleet {
  readonly mode: AddressMode;
  readonly lights: readonly VirtualLight[];
  /** Packets each light keeps (FleetOptions.recordLimit). */
  readonly recordLimit: number;
  private readonly bySerial = new Map<string, VirtualLight>();
  private readonly requestedPort: number;
  private readonly listenAddress: string;
  private readonly recvBufferSize: number;
  private readonly onError: (err: unknown) => void;
  private sockets: Socket[] = [];
  /** Each light's own socket (moveLight replaces it). */
  private readonly lightSockets = new Map<VirtualLight, Socket>();
  /** ip mode: addresses lights moved away from, still bound so that nothing there answers. */
  private readonly vacated = new Map<string, Socket>();
  /** Datagrams sent to an address a light moved away from (dropped, as on a LAN where nobody has it any more). */
  sentToVacated = 0;
  private sharedPort = 0;
  private readonly timers = new Set<Timer>();
  private readonly immediates = new Set<Immediate>();
  private state: 'stopped' | 'starting' | 'running' | 'stopping' = 'stopped';
  private starting: Promise<void> | null = null;
  private stopping: Promise<void> | null = null;
  /** Errors caught inside socket handlers (the first 100 are kept; none is ever thrown). */
  readonly errors: unknown[] = [];
  /** Datagrams on the shared listener that did not decode. */
  undecodable = 0;

  /** Validates `fleet` (a fleet file's content or a validated spec) and places the lights; nothing is bound yet. */
  constructor(fleet: FleetInput | FleetSpec, options: FleetOptions = {}) {
    const now = options.now ?? Date.now;
    const spec = isSpec(fleet) ? fleet : parseFleet(fleet, BigInt(Math.round(now())) * 1_000_000n);
    this.mode = options.mode ?? 'ip';
    if (this.mode !== 'ip' && this.mode !== 'port') {
      throw new LightwireError('FLEET_INVALID', { path: 'mode', reason: `must be "ip" or "port", got ${String(this.mode)}` });
    }
    const port = options.port ?? DEFAULT_PORT;
    if (!Number.isInteger(port) || port < 0 || port > PORT_MAX) {
      throw new LightwireError('FLEET_INVALID', { path: 'port', reason: `must be an integer from 0 to ${PORT_MAX}, got ${port}` });
    }
    if (this.mode === 'port' && port !== 0 && port + spec.lights.length > PORT_MAX) {
      throw new LightwireError('FLEET_INVALID', { path: 'port', reason: `${spec.lights.length} lights after port ${port} pass ${PORT_MAX}` });
    }
    this.requestedPort = port;
    this.recvBufferSize = options.recvBufferSize ?? DEFAULT_RECV_BUFFER;
    const base = options.baseAddress ?? (this.mode === 'ip' ? DEFAULT_IP_BASE : DEFAULT_PORT_MODE_ADDRESS);
    if (parseIpv4(base) === null) {
      throw new LightwireError('FLEET_INVALID', { path: 'baseAddress', reason: `must be an IPv4 address, got ${JSON.stringify(base)}` });
    }
    this.listenAddress = options.listenAddress ?? (this.mode === 'ip' && isLoopbackIpv4(base) ? LOOPBACK_BROADCAST : '0.0.0.0');
    const addresses = this.mode === 'ip' ? allocateAddresses(base, spec.lights.length) : spec.lights.map(() => base);
    if (addresses === null) {
      throw new LightwireError('FLEET_INVALID', {
        path: 'baseAddress',
        reason: `${spec.lights.length} addresses from ${base} do not fit in ${base.split('.')[0]}.0.0.0/8`,
      });
    }
    this.recordLimit = options.recordLimit ?? defaultRecordLimit(spec.lights.length);
    this.onError = (err) => {
      if (this.errors.length < MAX_KEPT_ERRORS) this.errors.push(err);
      try {
        options.onError?.(err);
      } catch {
        // The caller's handler failing must not escape a socket handler either.
      }
    };
    const env: LightEnvironment = {
      now,
      random: options.random ?? Math.random,
      recordLimit: this.recordLimit,
      setTimer: (fn, ms) => this.setTimer(fn, ms),
      onError: this.onError,
    };
    this.lights = Object.freeze(spec.lights.map((l, i) => new VirtualLight(l, addresses[i]!, env)));
    for (const light of this.lights) this.bySerial.set(light.serial, light);
  }

  /** The discovery port (the shared listener's); known once started. */
  get port(): number {
    return this.sharedPort;
  }

  get running(): boolean {
    return this.state === 'running';
  }

  /** The light with this serial; LIGHT_NOT_FOUND otherwise. */
  light(serial: string): VirtualLight {
    const light = this.bySerial.get(serial.toLowerCase());
    if (light === undefined) throw new LightwireError('LIGHT_NOT_FOUND', { serial });
    return light;
  }

  /** Most messages any light received in a sliding one-second window. */
  maxMessagesPerSecond(): number {
    let max = 0;
    for (const light of this.lights) max = Math.max(max, light.maxMessagesPerSecond());
    return max;
  }

  clearRecords(): void {
    for (const light of this.lights) light.clearRecords();
    this.undecodable = 0;
  }

  /** Binds every socket (in parallel). ADDRESS_IN_USE / ADDRESS_UNAVAILABLE on failure, with nothing left open. */
  start(): Promise<void> {
    if (this.state !== 'stopped') return Promise.reject(new Error(`cannot start a fleet that is ${this.state}`));
    this.state = 'starting';
    this.starting = this.bindAll().finally(() => {
      this.starting = null;
    });
    return this.starting;
  }

  private async bindAll(): Promise<void> {
    try {
      // SO_REUSEADDR, which the listener and the ip-mode lights sharing its port need, lets any number of processes
      // bind one UDP port, so a second fleet on it would start and answer for the first one's lights. A socket
      // without it cannot bind a port another socket holds: it finds out first (a chosen port only).
      if (this.requestedPort !== 0) {
        const probe = this.openSocket(false);
        await this.bind(probe, this.listenAddress, this.requestedPort);
        await new Promise<void>((resolve) => probe.close(() => resolve()));
        this.sockets = this.sockets.filter((x) => x !== probe);
      }
      const shared = this.openSocket(true, this.recvBufferSize);
      shared.on('message', (msg, rinfo) => this.onShared(msg, rinfo));
      await this.bind(shared, this.listenAddress, this.requestedPort);
      this.sharedPort = shared.address().port;
      await Promise.all(
        this.lights.map(async (light, i) => {
          const port = this.mode === 'ip' ? this.sharedPort : this.requestedPort === 0 ? 0 : this.requestedPort + 1 + i;
          // ip-mode lights share the listener's port, so they need SO_REUSEADDR; port-mode lights own theirs,
          // and binding without it lets a port taken by another program fail loudly.
          const socket = this.openSocket(this.mode === 'ip');
          socket.on('message', (msg, rinfo) => this.onUnicast(light, msg, rinfo));
          await this.bind(socket, light.address, port);
          light.attach(socket, socket.address().port);
          this.lightSockets.set(light, socket);
        }),
      );
      this.state = 'running';
    } catch (err) {
      await this.closeAll();
      this.state = 'stopped';
      throw err;
    }
  }

  /** Closes every socket and clears every timer, resolving once the handles are released; it can start again. */
  async stop(): Promise<void> {
    // A stop during start waits for the binds to settle, then closes whatever they opened.
    if (this.starting !== null) await this.starting.catch(() => {});
    if (this.stopping !== null) return this.stopping;
    if (this.state === 'stopped') return;
    this.state = 'stopping';
    this.stopping = this.closeAll().finally(() => {
      this.state = 'stopped';
      this.stopping = null;
    });
    return this.stopping;
  }

  /**
   * Moves a running light, as a device that got a new DHCP lease: it answers from its new place only, and
   * says so in StateService (discovery). ip mode: `address` is its new loopback address (127.0.0.0/8, not another
   * light's), on the same port; port mode: `address` must be omitted and the light gets a new port the system picks.
   * Nothing answers at the old place any more: what is sent there is lost (counted in `sentToVacated` in ip mode).
   * CONTROL_REQUEST_INVALID unless the fleet runs; FLEET_INVALID for a bad address;
   * ADDRESS_IN_USE / ADDRESS_UNAVAILABLE when the new socket cannot bind (the light then stays where it was).
   */
  async moveLight(serial: string, address?: string): Promise<VirtualLight> {
    const light = this.light(serial);
    const previous = light.address;
    if (this.state !== 'running') throw new LightwireError('CONTROL_REQUEST_INVALID', { reason: `cannot move a light of a fleet that is ${this.state}` });
    let to: string;
    let port: number;
    if (this.mode === 'ip') {
      if (address === undefined || !isLoopbackIpv4(address)) {
        throw new LightwireError('FLEET_INVALID', { path: 'address', reason: `must be an IPv4 address in 127.0.0.0/8, got ${JSON.stringify(address)}` });
      }
      const holder = this.lights.find((l) => l !== light && l.address === address);
      if (holder !== undefined) throw new LightwireError('FLEET_INVALID', { path: 'address', reason: `${address} is ${holder.serial}'s` });
      to = address;
      port = this.sharedPort;
    } else {
      if (address !== undefined) throw new LightwireError('FLEET_INVALID', { path: 'address', reason: 'a port-mode light moves to a new port, not an address' });
      to = light.address;
      port = 0;
    }
    const old = this.lightSockets.get(light);
    // Moving back to an address left earlier: its silent socket makes way.
    const vacant = this.vacated.get(to);
    if (vacant !== undefined) {
      this.vacated.delete(to);
      await this.closeSocket(vacant);
    }
    const socket = this.openSocket(this.mode === 'ip');
    socket.on('message', (msg, rinfo) => this.onUnicast(light, msg, rinfo));
    try {
      await this.bind(socket, to, port);
    } catch (err) {
      this.sockets = this.sockets.filter((s) => s !== socket);
      socket.close();
      throw err;
    }
    light.attach(socket, socket.address().port, to);
    this.lightSockets.set(light, socket);
    if (old !== undefined && this.mode === 'ip') {
      // The old address stays bound, answering nothing and counting what is sent there (a listener given 0.0.0.0
      // would otherwise take it and hand it to the light by its serial, as if the light had never moved).
      old.removeAllListeners('message');
      old.on('message', () => {
        this.sentToVacated++;
      });
      this.vacated.set(previous, old);
    } else if (old !== undefined) {
      await this.closeSocket(old);
    }
    return light;
  }

  private async closeSocket(socket: Socket): Promise<void> {
    this.sockets = this.sockets.filter((s) => s !== socket);
    await new Promise<void>((resolve) => {
      try {
        socket.close(() => resolve());
      } catch {
        resolve(); // already closed
      }
    });
  }

  // ---- internals ----

  private openSocket(reuseAddr: boolean, recvBufferSize?: number): Socket {
    const socket = createSocket({ type: 'udp4', reuseAddr, ...(recvBufferSize ? { recvBufferSize } : {}) });
    // Every socket has an error listener from birth: no unhandled 'error' event, ever.
    socket.on('error', (err) => this.onError(err));
    this.sockets.push(socket);
    return socket;
  }

  private bind(socket: Socket, address: string, port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const onError = (err: Error): void => {
        socket.off('listening', onListening);
        reject(bindError(err, address, port));
      };
      const onListening = (): void => {
        socket.off('error', onError);
        resolve();
      };
      socket.once('error', onError);
      socket.once('listening', onListening);
      try {
        socket.bind({ address, port, exclusive: true });
      } catch (err) {
        socket.off('error', onError);
        socket.off('listening', onListening);
        reject(bindError(err, address, port));
      }
    });
  }

  private async closeAll(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const i of this.immediates) clearImmediate(i);
    this.immediates.clear();
    const sockets = this.sockets;
    this.sockets = [];
    for (const light of this.lights) light.attach(null, light.port);
    this.lightSockets.clear();
    this.vacated.clear();
    await Promise.all(
      sockets.map(
        (s) =>
          new Promise<void>((resolve) => {
            try {
              s.close(() => resolve());
            } catch {
              resolve(); // never bound or already closed
            }
          }),
      ),
    );
    // 'close' fires before libuv releases the handles (in the loop's close phase); wait for that, so a stopped
    // fleet shows no UDP handle in process.getActiveResourcesInfo().
    if (sockets.length > 0) for (let i = 0; i < 2; i++) await new Promise<void>((resolve) => setImmediate(resolve));
  }

  private setTimer(fn: () => void, ms: number): void {
    // A reply delayed past stop() is never sent.
    if (this.state === 'stopping' || this.state === 'stopped') return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      this.guard(fn);
    }, ms);
    this.timers.add(t);
  }

  private guard(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.onError(err);
    }
  }

  private onUnicast(light: VirtualLight, msg: Buffer, rinfo: RemoteInfo): void {
    this.guard(() => {
      const result = decode(msg);
      if (!result.ok) {
        light.noteUndecodable();
        return;
      }
      light.receive(result.packet, { address: rinfo.address, port: rinfo.port }, msg);
    });
  }

  private onShared(msg: Buffer, rinfo: RemoteInfo): void {
    this.guard(() => {
      const result = decode(msg);
      if (!result.ok) {
        this.undecodable++;
        return;
      }
      const packet = result.packet;
      const from = { address: rinfo.address, port: rinfo.port };
      if (packet.header.target !== BROADCAST_TARGET) {
        this.bySerial.get(packet.header.target)?.receive(packet, from, msg);
        return;
      }
      this.fanOut(packet, from, msg, 0);
    });
  }

  private fanOut(packet: Packet, from: { address: string; port: number }, datagram: Buffer, start: number): void {
    const end = Math.min(this.lights.length, start + FANOUT_BATCH);
    for (let i = start; i < end; i++) {
      try {
        this.lights[i]!.receive(packet, from, datagram);
      } catch (err) {
        this.onError(err);
      }
    }
    if (end < this.lights.length && this.state !== 'stopping' && this.state !== 'stopped') {
      const immediate = setImmediate(() => {
        this.immediates.delete(immediate);
        this.guard(() => this.fanOut(packet, from, datagram, end));
      });
      this.immediates.add(immediate);
    }
  }
}

function isSpec(fleet: FleetInput | FleetSpec): fleet is FleetSpec {
  const first = (fleet as { lights?: unknown }).lights;
  return Array.isArray(first) && first.length > 0 && typeof (first[0] as { product?: unknown }).product === 'object';
}

// A small LIFX client for the simulator tests, built from the codec and a dgram socket (deliberately not
// core/transport, so these tests check the simulator against the codec alone). Loopback only.

import { createSocket, type Socket } from 'node:dgram';
import { decode, encode, type DecodeResult, type KnownPacket, type Packet } from '../../core/protocol/codec.js';
import type { MessageName, Payload } from '../../core/protocol/messages/index.js';

export interface Endpoint {
  readonly address: string;
  readonly port: number;
}

export interface Received {
  readonly datagram: Buffer;
  readonly result: DecodeResult;
  /** The packet when the datagram decoded. */
  readonly packet: Packet | null;
  readonly from: Endpoint;
  readonly atMs: number;
}

export interface SendOptions {
  readonly target?: string;
  readonly ack?: boolean;
  readonly res?: boolean;
  readonly sequence?: number;
}

export interface RequestOptions extends SendOptions {
  /** Resolve as soon as this many replies (acks included) arrived, after `settleMs` more to catch extras. */
  readonly count?: number;
  /** How long to wait in total, ms. */
  readonly timeoutMs?: number;
  readonly settleMs?: number;
}

export const BROADCAST = '127.255.255.255';

export class TestClient {
  readonly inbox: Received[] = [];
  private sequence = 0;
  private readonly listeners = new Set<() => void>();

  private constructor(
    private readonly socket: Socket,
    readonly source: number,
  ) {
    socket.on('message', (datagram, rinfo) => {
      const result = decode(datagram);
      this.inbox.push({
        datagram,
        result,
        packet: result.ok ? result.packet : null,
        from: { address: rinfo.address, port: rinfo.port },
        atMs: performance.now(),
      });
      for (const l of this.listeners) l();
    });
  }

  /** A client on 127.0.0.1, on `port` (default: any free one), bound without SO_REUSEADDR; rejects when it cannot bind. */
  static async open(options: { source?: number; recvBufferSize?: number; port?: number } = {}): Promise<TestClient> {
    const socket = createSocket({ type: 'udp4', ...(options.recvBufferSize ? { recvBufferSize: options.recvBufferSize } : {}) });
    await new Promise<void>((resolve, reject) => {
      const fail = (err: Error): void => {
        socket.close();
        reject(err);
      };
      socket.once('error', fail);
      socket.bind({ address: '127.0.0.1', port: options.port ?? 0 }, () => {
        socket.off('error', fail);
        resolve();
      });
    });
    socket.on('error', () => {});
    socket.setBroadcast(true);
    return new TestClient(socket, options.source ?? 0x1000 + Math.floor(Math.random() * 0xfffff));
  }

  get port(): number {
    return this.socket.address().port;
  }

  nextSequence(): number {
    this.sequence = (this.sequence + 1) & 0xff;
    return this.sequence;
  }

  /** Sends one message; returns its sequence number. */
  send<N extends MessageName>(name: N, payload: Payload<N>, to: Endpoint, options: SendOptions = {}): number {
    const sequence = options.sequence ?? this.nextSequence();
    const datagram = encode({
      name,
      header: {
        source: this.source,
        sequence,
        ...(options.target === undefined ? {} : { target: options.target }),
        ackRequired: options.ack ?? false,
        resRequired: options.res ?? false,
      },
      payload,
    });
    this.sendRaw(datagram, to);
    return sequence;
  }

  sendRaw(datagram: Uint8Array, to: Endpoint): void {
    this.socket.send(datagram, to.port, to.address);
  }

  /** Datagrams that decoded and answer (source, sequence). */
  repliesTo(sequence: number): (Received & { packet: KnownPacket })[] {
    return this.inbox.filter(
      (r): r is Received & { packet: KnownPacket } =>
        r.packet !== null && r.packet.name !== null && r.packet.header.source === this.source && r.packet.header.sequence === sequence,
    );
  }

  /**
   * Waits until `predicate` holds or `timeoutMs` passes; returns whether it held. Checked on every datagram the
   * client receives and every 5 ms (for conditions on the fleet's side).
   */
  waitUntil(predicate: () => boolean, timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      if (predicate()) return resolve(true);
      const check = (): void => {
        if (!predicate()) return;
        finish(true);
      };
      const finish = (value: boolean): void => {
        clearTimeout(timer);
        clearInterval(poll);
        this.listeners.delete(check);
        resolve(value);
      };
      const timer = setTimeout(() => finish(predicate()), timeoutMs);
      const poll = setInterval(check, 5);
      this.listeners.add(check);
    });
  }

  /** Sends and collects the decodable replies matching its sequence. */
  async request<N extends MessageName>(
    name: N,
    payload: Payload<N>,
    to: Endpoint,
    options: RequestOptions = {},
  ): Promise<KnownPacket[]> {
    const sequence = this.send(name, payload, to, options);
    const timeoutMs = options.timeoutMs ?? 1000;
    const count = options.count;
    if (count === undefined) {
      // A negative window as the caller sets it (timeoutMs, default 1000): every reply that comes within it, often
      // none (a light that must stay silent). The virtual light answers within a poll of the event loop.
      await sleep(timeoutMs);
    } else {
      await this.waitUntil(() => this.repliesTo(sequence).length >= count, timeoutMs);
      // A negative window (settleMs, default 30 ms): no reply beyond the count, which the light would send together.
      await sleep(options.settleMs ?? 30);
    }
    return this.repliesTo(sequence).map((r) => r.packet);
  }

  clear(): void {
    this.inbox.length = 0;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Narrows a packet list to one message's payloads, in order. */
export function payloadsOf<N extends MessageName>(packets: readonly Packet[], name: N): Payload<N>[] {
  return packets.filter((p) => p.name === name).map((p) => p.payload as Payload<N>);
}

export function namesOf(packets: readonly Packet[]): (string | null)[] {
  return packets.map((p) => p.name);
}

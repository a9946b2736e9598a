import { decode, encode, type KnownPacket, type MessageName, type Payload } from '../../core/protocol/index.js';
import type { DatagramEndpoint, DatagramHandler, RemoteAddress } from '../../core/transport/udp.js';

export interface SentDatagram {
  readonly packet: KnownPacket;
  /** The datagram's bytes as sent (a copy). */
  readonly bytes: Buffer;
  readonly to: RemoteAddress;
  readonly atMs: number;
}

/** An in-memory endpoint: records what the requester sends and lets a test answer by hand. */
export class MemoryEndpoint implements DatagramEndpoint {
  readonly port = 50000;
  readonly sent: SentDatagram[] = [];
  closed = false;
  private handler: DatagramHandler = () => undefined;
  /** Called for each datagram sent; lets a test play a light. */
  respond: (packet: KnownPacket, to: RemoteAddress) => void = () => undefined;

  send(datagram: Buffer, port: number, address: string): Promise<void> {
    const result = decode(datagram);
    if (!result.ok || result.packet.name === null) throw new Error('requester sent an invalid datagram');
    const entry = { packet: result.packet, bytes: Buffer.from(datagram), to: { address, port }, atMs: Date.now() };
    this.sent.push(entry);
    this.respond(result.packet, entry.to);
    return Promise.resolve();
  }

  onDatagram(handler: DatagramHandler): void {
    this.handler = handler;
  }

  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }

  /** Delivers a raw datagram to the requester. */
  deliverRaw(datagram: Buffer, from: RemoteAddress): void {
    this.handler(datagram, from);
  }

  /** Delivers a reply to `request` from light `serial`. */
  reply<N extends MessageName>(request: KnownPacket, serial: string, name: N, payload: Payload<N>, from: RemoteAddress): void {
    const { source, sequence } = request.header;
    this.handler(encode({ name, header: { source, sequence, target: serial }, payload }), from);
  }

  sentOf(name: MessageName): SentDatagram[] {
    return this.sent.filter((s) => s.packet.name === name);
  }
}

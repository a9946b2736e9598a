// The doctor's own GetService probes, on a socket of their own so that it knows which answers came to a
// broadcast and which to a unicast probe (the client's discovery mixes both). Each probe is sent a few times
// (PROBE_COPIES, PROBE_GAP_MS apart) so a lossy light is not taken for a silent one.

import { createSocket, type Socket } from 'node:dgram';
import { randomNonZeroUint32 } from '../builtins.js';
import { BROADCAST_TARGET, decode, encode, PORT_MAX } from '../protocol/index.js';
import type { Endpoint } from './report.js';

export const PROBE_COPIES = 3;
export const PROBE_GAP_MS = 150;
/** How long after the last copy answers are still taken. */
export const PROBE_WAIT_MS = 400;

export interface ProbeAnswer {
  readonly serial: string;
  /** Where it answered from, with the port it advertises in StateService. */
  readonly at: Endpoint;
}

export class Prober {
  private readonly source = randomNonZeroUint32();
  private sequence = 0;
  private readonly waiting = new Map<number, (answer: ProbeAnswer) => void>();
  /** Asks waiting for a sequence number, woken one by one as probes end. */
  private readonly freed: (() => void)[] = [];

  private constructor(private readonly socket: Socket) {
    socket.on('message', (msg, rinfo) => {
      const result = decode(msg);
      if (!result.ok) return;
      const p = result.packet;
      if (p.name !== 'StateService' || p.header.source !== this.source) return;
      // Only UDP (service 1) at a port UDP has (the field is a u32; 0 means unavailable), from a device with a serial
      // (the all-zero target addresses every device): anything else is no light, and a port beyond PORT_MAX could not
      // even be asked.
      const port = p.payload.port;
      if (p.payload.service !== 1 || port < 1 || port > PORT_MAX || p.header.target === BROADCAST_TARGET) return;
      this.waiting.get(p.header.sequence)?.({ serial: p.header.target, at: { address: rinfo.address, port } });
    });
  }

  static async open(): Promise<Prober> {
    const socket = createSocket({ type: 'udp4' });
    socket.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind({ address: '0.0.0.0', port: 0 }, () => {
        socket.off('error', reject);
        resolve();
      });
    });
    socket.setBroadcast(true);
    return new Prober(socket);
  }

  /** GetService to every address (broadcast or unicast) at `port`; every distinct answer. */
  async ask(addresses: readonly string[], port: number): Promise<ProbeAnswer[]> {
    if (addresses.length === 0) return [];
    const sequence = await this.freeSequence();
    const answers = new Map<string, ProbeAnswer>();
    this.waiting.set(sequence, (a) => answers.set(`${a.serial}@${a.at.address}:${a.at.port}`, a));
    const datagram = encode({ name: 'GetService', header: { source: this.source, sequence, resRequired: true }, payload: {} });
    try {
      for (let copy = 0; copy < PROBE_COPIES; copy++) {
        if (copy > 0) await sleep(PROBE_GAP_MS);
        for (const address of addresses) this.socket.send(datagram, port, address, () => undefined);
      }
      await sleep(PROBE_WAIT_MS);
    } finally {
      this.waiting.delete(sequence);
      this.freed.shift()?.();
    }
    return [...answers.values()];
  }

  /**
   * A sequence number no probe in flight holds (answers are told apart by it alone, and it has 8 bits): with 256
   * probes in flight, the next waits for one to end, rather than take over its answers.
   */
  private async freeSequence(): Promise<number> {
    for (;;) {
      for (let i = 0; i < 256; i++) {
        this.sequence = (this.sequence + 1) & 0xff;
        if (!this.waiting.has(this.sequence)) {
          // Held from now, before any await: a concurrent ask cannot take it too.
          this.waiting.set(this.sequence, () => undefined);
          return this.sequence;
        }
      }
      await new Promise<void>((resolve) => this.freed.push(resolve));
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      try {
        this.socket.close(() => resolve());
      } catch {
        resolve();
      }
    });
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

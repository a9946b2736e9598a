// Where each light was while a doctor watched: the service's doctor (service-doctor.ts) watches from the service's
// start, the standalone one (doctor.ts) for its run. Only types come from elsewhere, so watching loads nothing.

import type { LightClient } from '../discovery/client.js';
import type { LightRecord } from '../discovery/registry.js';
import type { Endpoint } from './report.js';

/** Addresses each light had while watched: follows the client's `changed` events naming `address`. */
export class AddressHistory {
  private readonly previous = new Map<string, string[]>();
  private readonly current = new Map<string, string>();
  private readonly onChanged = (record: LightRecord, fields: readonly string[]): void => {
    if (!fields.includes('address')) return;
    const now = `${record.address}:${record.port}`;
    const before = this.current.get(record.serial);
    if (before !== undefined && before !== now) this.previous.set(record.serial, [...(this.previous.get(record.serial) ?? []), before]);
    this.current.set(record.serial, now);
  };
  private readonly onAdded = (record: LightRecord): void => {
    if (!this.current.has(record.serial)) this.current.set(record.serial, `${record.address}:${record.port}`);
  };

  constructor(private readonly client: LightClient) {
    for (const r of client.registry.peekAll()) this.current.set(r.serial, `${r.address}:${r.port}`);
    client.on('changed', this.onChanged);
    client.on('added', this.onAdded);
  }

  /** The addresses a light had before its current one, oldest first. */
  previousAddresses(serial: string): readonly string[] {
    return this.previous.get(serial) ?? [];
  }

  /**
   * Every light heard while watched, with its latest address: the registry forgets a light that answered
   * discovery but never a read, and the doctor still has to say what is wrong with it.
   */
  heard(): Map<string, Endpoint> {
    const out = new Map<string, Endpoint>();
    for (const [serial, text] of this.current) out.set(serial, parseEndpoint(text));
    return out;
  }

  /** Lights that used to be at `address` (any port) and are elsewhere now. */
  movedFrom(address: string): { serial: string; now: Endpoint }[] {
    const out: { serial: string; now: Endpoint }[] = [];
    for (const [serial, list] of this.previous) {
      if (!list.some((a) => a.split(':')[0] === address)) continue;
      const r = this.client.registry.peek(serial);
      if (r && r.address !== address) out.push({ serial, now: { address: r.address, port: r.port } });
    }
    return out;
  }

  stop(): void {
    this.client.off('changed', this.onChanged);
    this.client.off('added', this.onAdded);
  }
}

/** `address:port` as an endpoint (the address may itself hold colons: the port follows the last one). */
export function parseEndpoint(text: string): Endpoint {
  const colon = text.lastIndexOf(':');
  return { address: text.slice(0, colon), port: Number(text.slice(colon + 1)) };
}

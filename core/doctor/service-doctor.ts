// The doctor of a running service (the dashboard's /api/doctor): it watches from the service's start (addresses, lights
// coming back online) and loads the doctor itself (doctor.ts: probes, host checks, judging) on the first report.
// AddressHistory also serves the standalone doctor (doctor.ts) for its run.

import type { LightClient } from '../discovery/client.js';
import type { LightRecord } from '../discovery/registry.js';
import type { LightTransportStats } from '../transport/requester.js';
import { doctorIo, MAX_PROBE_COUNT } from './on-demand.js';
import type { DoctorReport, Endpoint } from './report.js';

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

/**
 * The doctor of a running service: watches address changes from when it is created, and on each report takes the
 * transport's figures since the start, or since the light last came back online (probeCount 0), or measures afresh
 * (probeCount > 0, with a broadcast probe). The service builds its own over its client (LightService.doctorReport):
 * no face holds the client.
 */
export class ServiceDoctor {
  private readonly history: AddressHistory;
  /**
   * Each light's transport figures when it last came back online. A report from the service's figures (probeCount 0)
   * counts from there: the reads an outage left unanswered (a light cut at the wall) are no loss of the light that
   * answers now, and would otherwise call it lossy, with advice about Wi-Fi, for as long as the service runs.
   */
  private readonly backOnline = new Map<string, LightTransportStats>();
  private readonly onOnline = (record: LightRecord): void => {
    const client = this.client;
    const stats = client.started ? client.requester.lightStats(record.serial) : undefined;
    if (stats !== undefined) this.backOnline.set(record.serial, stats);
  };

  constructor(private readonly client: LightClient) {
    this.history = new AddressHistory(client);
    client.on('online', this.onOnline);
  }

  /** The measurement in flight (probeCount > 0), which a request made meanwhile shares. */
  private measuring: Promise<DoctorReport> | undefined;

  /**
   * The report. One measurement runs at a time: a request for one while another runs gets that one's report (with
   * its probe count), so pages and scripts asking together do not multiply the probes the lights must answer.
   */
  async report(request: { readonly probeCount?: number } = {}): Promise<DoctorReport> {
    const io = doctorIo();
    const probeCount = io.positiveInt('probeCount', request.probeCount, 0, 0, MAX_PROBE_COUNT);
    if (probeCount === 0) return io.serviceReport(this.client, this.history, this.backOnline, 0);
    this.measuring ??= io.serviceReport(this.client, this.history, this.backOnline, probeCount).finally(() => (this.measuring = undefined));
    return this.measuring;
  }

  stop(): void {
    this.history.stop();
    this.client.off('online', this.onOnline);
  }
}

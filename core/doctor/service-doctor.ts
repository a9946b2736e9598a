// The doctor of a running service (the dashboard's /api/doctor): it watches from the service's start (addresses, lights
// coming back online) and loads the doctor itself (doctor.ts: probes, host checks, judging) on the first report.

import type { LightClient } from '../discovery/client.js';
import type { LightRecord } from '../discovery/registry.js';
import type { LightTransportStats } from '../transport/requester.js';
import { AddressHistory } from './address-history.js';
import { MAX_PROBE_COUNT } from './limits.js';
import { doctorIo } from './on-demand.js';
import type { DoctorReport } from './report.js';

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

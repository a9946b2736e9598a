// Shared by the dashboard's browser tests: Debian's Chromium through playwright-core (never a downloaded browser),
// and `lightwire serve` run in this process against a virtual fleet on loopback with its control endpoint.

import path from 'node:path';
import { COMMANDS } from '../../../core/cli/commands.js';
import { defaultFleet, Fleet, startControlServer, type ControlServer, type FleetInput } from '../../../core/simulator/index.js';
import { captureIO, type CapturedIO } from '../../helpers/cli-io.js';
import { until } from '../../helpers/wait.js';

export { launchChromium } from '../../helpers/chromium.js';

const NO_SCENES = path.join(__dirname, '..', 'fixtures', 'no-such-scenes.json');

export interface Served {
  readonly fleet: Fleet;
  readonly control: ControlServer;
  readonly io: CapturedIO;
  /** The dashboard: http://127.0.0.1:PORT/ */
  readonly origin: string;
  readonly apiUrl: string;
  close(): Promise<void>;
}

/**
 * A fleet on loopback (its own discovery port) with its control endpoint, and `lightwire serve` finding it by the
 * loopback broadcast, run in this process; resolves once serve printed its URL.
 */
export async function serveFleet(input: FleetInput = defaultFleet(12), extraArgs: readonly string[] = []): Promise<Served> {
  const fleet = new Fleet(input, { port: 0 });
  await fleet.start();
  const control = await startControlServer(fleet);
  const io = captureIO();
  const serve = COMMANDS.find((c) => c.name === 'serve');
  if (serve === undefined) throw new Error('lightwire serve is not a registered command');
  const args = ['--port', '0', '--broadcast', '127.255.255.255', '--lan-port', String(fleet.port), '--scenes', NO_SCENES, ...extraArgs];
  const done = serve.run(args, io);
  let exited: number | null = null;
  void done.then((code) => (exited = code));
  const match = await until(
    () => {
      if (exited !== null) throw new Error(`serve exited with ${exited}: ${io.err()}`);
      return /LIFX HTTP API v1 at (http:\/\/127\.0\.0\.1:\d+)\/v1/.exec(io.out());
    },
    { timeoutMs: 60_000, what: () => `serve to start: ${io.err()}` },
  );
  const origin = match[1]!;
  return {
    fleet,
    control,
    io,
    origin,
    apiUrl: `${origin}/v1`,
    close: async () => {
      io.abort();
      await done;
      await control.close();
      await fleet.stop();
    },
  };
}

export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

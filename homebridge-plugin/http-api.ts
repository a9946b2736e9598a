// The HTTP API beside Homebridge (option `http`), loaded only when it is enabled.

import type { Logging } from 'homebridge';
import type { LightService } from '../core/index.js';
import type { RunningServer, ServerOptions } from '../core/http/index.js';
import type { LightwireConfig } from './config.js';

/** Starts the HTTP API the config asks for (`start`: a test's, else the package's); undefined, logged, when it cannot. */
export async function startHttpApi(
  config: LightwireConfig,
  service: LightService,
  log: Logging,
  start?: (options: ServerOptions) => Promise<RunningServer>,
): Promise<RunningServer | undefined> {
  try {
    const startServer = start ?? (await import('../core/http/index.js')).startServer;
    return await startServer({
      service,
      host: config.http.host,
      port: config.http.port,
      ...(config.http.tokens.length > 0 ? { tokens: config.http.tokens } : {}),
      log: (line) => log.error(`HTTP API: ${line}`),
    });
  } catch (err) {
    log.error(`HTTP API not started: ${(err as Error).message}`);
    return undefined;
  }
}

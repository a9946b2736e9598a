// The loopback-only HTTP control endpoint of a running fleet (for `lightwire simulate` and scripts):
//   GET   /lights           every light: serial, label, product, address:port, faults, state, received counts
//   GET   /lights/:serial   one light
//   PATCH /lights/:serial   body {faults?, state?}: faults as in a fleet file, state as VirtualLight.setState
//   DELETE /lights/:serial/records   forget what the light received
//   POST  /lights/:serial/move   body {address?}: Fleet.moveLight (ip mode: a new 127.x address; port mode: no body,
//                                a new port)
// Errors answer {code, message, params} with the error table's HTTP status (404 LIGHT_NOT_FOUND,
// 400 FLEET_INVALID / CONTROL_REQUEST_INVALID).

import Fastify, { type FastifyInstance } from 'fastify';
import { LightwireError, isLightwireError } from '../errors.js';
import { isLoopbackHost } from './addresses.js';
import type { Fleet } from './fleet.js';

export interface ControlServerOptions {
  /** Must be a loopback host (127.0.0.0/8, ::1, localhost); default 127.0.0.1. */
  readonly host?: string;
  /** Default 0: a free port. */
  readonly port?: number;
}

export interface ControlServer {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Checked before anything listens: CONTROL_HOST_NOT_LOOPBACK for any other host. */
export function assertLoopbackHost(host: string): void {
  if (!isLoopbackHost(host)) throw new LightwireError('CONTROL_HOST_NOT_LOOPBACK', { host });
}

function buildApp(fleet: Fleet): FastifyInstance {
  const app = Fastify({ logger: false });
  app.setErrorHandler((err, _request, replyTo) => {
    if (isLightwireError(err)) return replyTo.status(err.httpStatus).send(err.toJSON());
    const status = typeof (err as { statusCode?: unknown }).statusCode === 'number' ? (err as { statusCode: number }).statusCode : 500;
    const wrapped = new LightwireError('CONTROL_REQUEST_INVALID', { reason: (err as Error).message });
    return replyTo.status(status).send(wrapped.toJSON());
  });
  app.setNotFoundHandler((request, replyTo) =>
    replyTo.status(404).send(new LightwireError('CONTROL_REQUEST_INVALID', { reason: `no route ${request.method} ${request.url}` }).toJSON()),
  );

  app.get('/lights', async () => fleet.lights.map((l) => l.summary()));
  app.get<{ Params: { serial: string } }>('/lights/:serial', async (request) => fleet.light(request.params.serial).summary());
  app.patch<{ Params: { serial: string }; Body: unknown }>('/lights/:serial', async (request) => {
    const light = fleet.light(request.params.serial);
    light.update(request.body);
    return light.summary();
  });
  app.post<{ Params: { serial: string }; Body: unknown }>('/lights/:serial/move', async (request) => {
    const body = request.body ?? {};
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new LightwireError('CONTROL_REQUEST_INVALID', { reason: 'a move must be an object {address?}' });
    }
    const { address, ...rest } = body as Record<string, unknown>;
    const unknownKey = Object.keys(rest)[0];
    if (unknownKey !== undefined) throw new LightwireError('CONTROL_REQUEST_INVALID', { reason: `unknown key ${unknownKey} (allowed: address)` });
    if (address !== undefined && typeof address !== 'string') {
      throw new LightwireError('FLEET_INVALID', { path: 'address', reason: 'must be a string' });
    }
    return (await fleet.moveLight(request.params.serial, address)).summary();
  });
  app.delete<{ Params: { serial: string } }>('/lights/:serial/records', async (request) => {
    const light = fleet.light(request.params.serial);
    light.clearRecords();
    return light.summary();
  });
  return app;
}

/** Starts the control endpoint for a fleet. The fleet's lifecycle stays the caller's. */
export async function startControlServer(fleet: Fleet, options: ControlServerOptions = {}): Promise<ControlServer> {
  const host = options.host ?? '127.0.0.1';
  assertLoopbackHost(host);
  const app = buildApp(fleet);
  try {
    await app.listen({ host, port: options.port ?? 0 });
  } catch (err) {
    await app.close();
    const code = (err as NodeJS.ErrnoException).code;
    const port = options.port ?? 0;
    if (code === 'EADDRINUSE') throw new LightwireError('ADDRESS_IN_USE', { address: host, port });
    throw new LightwireError('ADDRESS_UNAVAILABLE', { address: host, port, reason: code ?? String(err) });
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return { url: `http://${shownHost}:${port}`, port, close: () => app.close() };
}

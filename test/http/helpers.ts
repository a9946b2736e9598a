import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import type { LightServiceOptions } from '../../core/control/service.js';
import { buildServer, type ServerOptions } from '../../core/http/server.js';
import { defaultFleet } from '../../core/simulator/default-fleet.js';
import type { FleetInput } from '../../core/simulator/fleet-file.js';
import { serviceRig, type ServiceRig } from '../helpers/service-rig.js';

export interface ApiRig extends ServiceRig {
  readonly app: FastifyInstance;
  /** `app.inject` with the body parsed when it is JSON. */
  call(options: InjectOptions): Promise<LightMyRequestResponse & { json: () => any }>;
}

/**
 * Virtual lights on loopback, a client that found and read them, the light service, and the HTTP server around
 * it (not listening: tests call `inject`, or `app.listen` on 127.0.0.1 for real sockets).
 */
export async function apiRig(
  fleet: FleetInput = defaultFleet(11),
  server: Omit<ServerOptions, 'service'> = {},
  service: LightServiceOptions = {},
): Promise<ApiRig> {
  const rig = await serviceRig(fleet, { deadlineMs: 1500, ...service });
  const app = buildServer({ ...server, service: rig.service });
  await app.ready();
  return {
    ...rig,
    app,
    call: async (options) => {
      const res = await app.inject(options);
      return Object.assign(res, { json: () => JSON.parse(res.body) as unknown });
    },
    close: async () => {
      await app.close();
      await rig.close();
    },
  };
}

export const FORM = { 'content-type': 'application/x-www-form-urlencoded' } as const;
export const JSON_TYPE = { 'content-type': 'application/json' } as const;

/** The three rate-limit headers of a response, as numbers. */
export function rateHeaders(res: { headers: Record<string, unknown> }): { limit: number; remaining: number; reset: number } {
  return {
    limit: Number(res.headers['x-ratelimit-limit']),
    remaining: Number(res.headers['x-ratelimit-remaining']),
    reset: Number(res.headers['x-ratelimit-reset']),
  };
}

export const DESK = 'd073d5000001';
export const LEFT = 'd073d5000002';
export const WARM = 'd073d5000003';
export const STRIP = 'd073d5000004';
export const TILES = 'd073d5000005';
export const CLEAN = 'd073d5000006';
export const PORCH = 'd073d5000007';

/** One of each kind the endpoints treat differently, with labels that need percent-encoding. */
export function contractFleet(): FleetInput {
  return {
    lights: [
      { serial: DESK, product: 91, label: 'Desk', lux: 33, group: { label: 'Office' }, location: { label: 'Home' }, power: 'on', color: { hue: 0, saturation: 1, brightness: 0.5, kelvin: 3500 } },
      { serial: LEFT, product: 91, label: 'Living Room/Left', group: { label: 'Living Room' }, location: { label: 'Home' }, power: 'off', color: { hue: 120, saturation: 1, brightness: 1, kelvin: 3500 } },
      { serial: WARM, product: 125, label: '100% Warm', group: { label: 'Living Room' }, location: { label: 'Home' }, power: 'on', color: { hue: 0, saturation: 0, brightness: 0.8, kelvin: 2700 } },
      { serial: STRIP, product: 32, label: 'Shelf', firmware: { major: 2, minor: 80 }, zoneCount: 16, group: { label: 'Office' }, location: { label: 'Home' }, power: 'on' },
      // Firmware 4: the sky effects need it (a real Tile stops at 3.50; this one stands for any matrix chain).
      { serial: TILES, product: 55, label: 'Tiles', tileCount: 2, firmware: { major: 4, minor: 0 }, group: { label: 'Office' }, location: { label: 'Home' }, power: 'on' },
      { serial: CLEAN, product: 90, label: 'Clean', group: { label: 'Kitchen' }, location: { label: 'Home' }, power: 'on' },
      { serial: PORCH, product: 109, label: 'Porch', infrared: 0.25, group: { label: 'Outside' }, location: { label: 'Home' }, power: 'on' },
    ],
  };
}

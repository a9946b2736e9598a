// Shared set-up for the simulator tests: fleets on a free port, a client, and cleanup.

import { Fleet, type FleetOptions } from '../../core/simulator/fleet.js';
import type { FleetInput, LightInput } from '../../core/simulator/fleet-file.js';
import { TestClient, type Endpoint } from './client.js';

export const BULB = 'd073d5000001';

/** A colour bulb (LIFX Color, pid 91) with a known label, colour and group. */
export function bulb(overrides: Partial<LightInput> = {}): LightInput {
  return {
    serial: BULB,
    product: 91,
    label: 'Desk',
    firmware: { major: 3, minor: 70 },
    group: { label: 'Office' },
    location: { label: 'Home' },
    power: 'on',
    color: { hue: 120, saturation: 1, brightness: 0.5, kelvin: 3500 },
    ...overrides,
  };
}

export interface Rig {
  readonly fleet: Fleet;
  readonly client: TestClient;
  /** Where one light answers unicast. */
  at(serial: string): Endpoint;
  /** The discovery endpoint: 127.255.255.255 on the fleet's port. */
  readonly broadcast: Endpoint;
  close(): Promise<void>;
}

/** Starts a fleet on a free port (port 0) and opens a client. Always `await rig.close()`. */
export async function rig(fleet: FleetInput, options: FleetOptions = {}): Promise<Rig> {
  const f = new Fleet(fleet, { port: 0, ...options });
  await f.start();
  const client = await TestClient.open();
  return {
    fleet: f,
    client,
    at: (serial) => {
      const light = f.light(serial);
      return { address: light.address, port: light.port };
    },
    broadcast: { address: '127.255.255.255', port: f.port },
    close: async () => {
      await client.close();
      await f.stop();
    },
  };
}

/** A clock tests move by hand. */
export function manualClock(startMs = 1_700_000_000_000): { now: () => number; advance: (ms: number) => void; set: (ms: number) => void } {
  let t = startMs;
  return { now: () => t, advance: (ms) => { t += ms; }, set: (ms) => { t = ms; } };
}

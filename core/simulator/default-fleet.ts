// A ready-made fleet of N controllable lights with some variety, for `lightwire simulate --virtual N`,
// demos and benchmarks. Deterministic: the same N always gives the same serials, products, labels and colours.

import type { FleetInput, LightInput } from './fleet-file.js';

interface Kind {
  readonly product: number;
  readonly name: string;
  readonly firmware: { readonly major: number; readonly minor: number };
  readonly extra?: Partial<LightInput>;
}

/**
 * The rotation: mostly colour bulbs, one white-to-warm bulb, an infrared bulb, a LIFX Z strip (16 zones, extended
 * multizone at 2.80), a Beam (extended, 80 zones), a Candle (one 5x6 matrix), a Tile chain (5 tiles) and a Clean (HEV).
 * No Switch: every light here can be controlled as a light.
 */
const KINDS: readonly Kind[] = [
  { product: 91, name: 'Color', firmware: { major: 3, minor: 70 } },
  { product: 125, name: 'White to Warm', firmware: { major: 3, minor: 70 } },
  { product: 32, name: 'Strip', firmware: { major: 2, minor: 80 }, extra: { zoneCount: 16 } },
  { product: 62, name: 'A19', firmware: { major: 3, minor: 70 } },
  { product: 137, name: 'Candle', firmware: { major: 3, minor: 70 } },
  { product: 109, name: 'Night Vision', firmware: { major: 3, minor: 70 }, extra: { infrared: 0.25 } },
  { product: 49, name: 'Mini', firmware: { major: 3, minor: 70 } },
  { product: 38, name: 'Beam', firmware: { major: 2, minor: 80 }, extra: { zoneCount: 80 } },
  { product: 92, name: 'Color', firmware: { major: 3, minor: 70 } },
  { product: 55, name: 'Tile', firmware: { major: 3, minor: 70 }, extra: { tileCount: 5 } },
  { product: 90, name: 'Clean', firmware: { major: 3, minor: 70 } },
];

const GROUPS = ['Living Room', 'Kitchen', 'Bedroom', 'Office', 'Hallway'] as const;

/** The serial of the i-th default light (0-based): d073d5000001, d073d5000002, … */
export function defaultSerial(index: number): string {
  return `d073d5${(index + 1).toString(16).padStart(6, '0')}`;
}

export interface DefaultFleetOptions {
  /** Faults for every light. */
  readonly faults?: LightInput['faults'];
}

/** A fresh fleet document the caller owns: edit `lights[i]` (faults, colours) before building a Fleet. */
export interface DefaultFleet extends FleetInput {
  description: string;
  lights: LightInput[];
}

export function defaultFleet(count: number, options: DefaultFleetOptions = {}): DefaultFleet {
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`a fleet needs at least one light, got ${count}`);
  const lights: LightInput[] = [];
  for (let i = 0; i < count; i++) {
    const kind = KINDS[i % KINDS.length]!;
    const isWhite = kind.product === 125;
    lights.push({
      serial: defaultSerial(i),
      product: kind.product,
      label: `${kind.name} ${i + 1}`,
      firmware: kind.firmware,
      group: { label: GROUPS[i % GROUPS.length]! },
      location: { label: 'Home' },
      // Every seventh light starts off.
      power: i % 7 === 6 ? 'off' : 'on',
      color: isWhite
        ? { hue: 0, saturation: 0, brightness: 0.8, kelvin: 2700 }
        : { hue: (i * 47) % 360, saturation: i % 3 === 0 ? 0 : 1, brightness: 0.5 + (i % 5) / 10, kelvin: 3500 },
      ...kind.extra,
      ...(options.faults === undefined ? {} : { faults: options.faults }),
    });
  }
  return { description: `${count} default virtual lights`, lights };
}

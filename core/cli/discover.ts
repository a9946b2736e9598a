// `lightwire discover`: find every light and show what it is and how it is doing.

import type { HeardDevice, LightView } from '../index.js';
import { shown, usageError, type FlagSpecs } from './args.js';
import { defineCommand, EXIT } from './command.js';
import { findingFlags, findingFrom, plural, PRODUCTS_FLAG, withLights, type Unanswered } from './connect.js';
import { formatColor, table } from './format.js';

export interface DiscoveredLight {
  serial: string;
  address: string | null;
  port: number | null;
  /** Answered the state read (false: it answered discovery only, or stopped answering). */
  online: boolean;
  label: string | null;
  product: string | null;
  productId: number | null;
  power: string | null;
  color: { hue: number; saturation: number; brightness: number; kelvin: number } | null;
  group: string | null;
  location: string | null;
  firmware: string | null;
  signal: string | null;
  rssi: number | null;
}

/** What discover prints for one light: the service's view (firmware and Wi-Fi among it), plus where it answers. */
export function describeLight(view: LightView, heard: HeardDevice | undefined): DiscoveredLight {
  return {
    serial: view.serial,
    address: heard?.address ?? null,
    port: heard?.port ?? null,
    online: view.online,
    label: view.label,
    product: view.product?.name ?? null,
    productId: view.product?.productId ?? null,
    power: view.power,
    color: view.color ? { ...view.color } : null,
    group: view.group?.name ?? null,
    location: view.location?.name ?? null,
    firmware: view.firmware ? `${view.firmware.major}.${view.firmware.minor}` : null,
    signal: view.wifi?.quality ?? null,
    rssi: view.wifi?.rssi ?? null,
  };
}

function unansweredLight(u: Unanswered): DiscoveredLight {
  const [address, port] = u.address === null ? [null, null] : [u.address.split(':')[0]!, Number(u.address.split(':')[1])];
  return {
    serial: u.serial, address, port, online: false, label: null, product: null, productId: null, power: null, color: null,
    group: null, location: null, firmware: null, signal: null, rssi: null,
  };
}

const DISCOVER_FLAGS = {
  json: { type: 'boolean', help: 'print JSON instead of a table' },
  ...findingFlags(true),
  ...PRODUCTS_FLAG,
} as const satisfies FlagSpecs;

export const discoverCommand = defineCommand({
  name: 'discover',
  summary: 'find the lights on the network and show their state',
  usage: 'lightwire discover [--json] [finding options]',
  description: `Broadcasts GetService (several times, as lights on busy networks miss single broadcasts), probes the
given lights by unicast for --wait-ms (or until --expect N lights answered), and lists every light that
answered with its serial, address, port, label, product, power, colour, group, location, firmware and
Wi-Fi signal quality. A light that answered discovery but not the state read is listed as offline.`,
  footer: 'Exit codes: 0 lights found, 1 nothing answered, 2 bad options.',
  flags: DISCOVER_FLAGS,
  async run(p, io) {
    if (p.positionals.length > 0) throw usageError(`discover takes no arguments, got ${p.positionals.map((a) => shown(a)).join(' ')}`);
    const finding = findingFrom(p);
    const json = p.values.json;
    const readTimeoutMs = Math.min(2000, Math.max(500, Math.round(finding.waitMs / 2)));
    const look = { command: 'discover', whole: true, discovery: { readTimeoutMs }, products: p.values.products, ...(json ? { onNone: () => io.stdout('[]\n') } : {}) };
    return withLights(finding, io, look, async ({ service, read, unanswered }) => {
      const heard = new Map(service.diagnostics().devices.map((d) => [d.serial, d]));
      const lights = [...read.map((v) => describeLight(v, heard.get(v.serial))), ...unanswered.filter((u) => u.address !== null).map(unansweredLight)];
      if (lights.length === 0) {
        if (json) io.stdout('[]\n');
        return EXIT.FAILURE;
      }
      if (json) {
        io.stdout(`${JSON.stringify(lights, null, 2)}\n`);
      } else {
        const rows = lights.map((l) => [
          l.serial,
          l.address === null ? '-' : `${l.address}:${l.port}`,
          l.label || '-',
          l.product ?? '-',
          l.online ? (l.power ?? '-') : 'offline',
          formatColor(l.color ?? undefined),
          l.group ?? '-',
          l.location ?? '-',
          l.firmware ?? '-',
          l.signal === null ? '-' : `${l.signal} (${l.rssi})`,
        ]);
        io.stdout(`${table(['SERIAL', 'ADDRESS', 'LABEL', 'PRODUCT', 'POWER', 'COLOUR', 'GROUP', 'LOCATION', 'FIRMWARE', 'SIGNAL'], rows)}\n`);
        io.stderr(`${plural(lights.length, 'light')} found.\n`);
      }
      return EXIT.OK;
    });
  },
});

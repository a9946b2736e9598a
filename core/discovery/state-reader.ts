// StateReader: one job, turning a light's state replies into registry facts. Colour, power and label of a light
// (GetColor -> LightState, https://lan.developer.lifx.com/docs/querying-the-device-for-data), power and label of a
// device that is no light (the Switch answers GetColor with StateUnhandled and has relays,
// https://lan.developer.lifx.com/docs/the-lifx-switch), and the zones of a multizone light (extended messages where
// its firmware has them, https://lan.developer.lifx.com/docs/multizone-light-control). It asks and saves; counting
// answers and misses, and sharing one read between callers, stay with the client.

import { LightwireError } from '../errors.js';
import { hsbkFromWire, powerFromWire, KELVIN_MAX, KELVIN_MIN, RELAYS_MAX, type Hsbk, type KelvinRange, type Product } from '../protocol/index.js';
import { NO_PAYLOAD, type DeviceAddress, type Requester, type ReplyOf } from '../transport/requester.js';
import type { LightRegistry, RelayFact } from './registry.js';
import { chainFromReply, pixelReads, pixelsFromReplies, shareEqualTiles } from './pixels.js';
import { zonesFromReplies } from './zones.js';

/** What a reader needs of its client: the registry it saves into, the requester it asks through, an address book. */
export interface ReadHost {
  readonly registry: LightRegistry;
  /** Throws CLIENT_STOPPED while the client is stopped. */
  readonly requester: Requester;
  addressOf(serial: string): DeviceAddress | undefined;
}

/** What a light of an unknown product can show: the widest range any product has. */
const DEFAULT_KELVIN_RANGE: KelvinRange = Object.freeze({ minK: KELVIN_MIN, maxK: KELVIN_MAX });

/** A colour a light reported, with its kelvin inside what the product can show (a reply once said 58188). */
function withinKelvin(color: Hsbk, range: KelvinRange): Hsbk {
  if (color.kelvin >= range.minK && color.kelvin <= range.maxK) return color;
  return { ...color, kelvin: Math.min(range.maxK, Math.max(range.minK, color.kelvin)) };
}

/** Options of one state read: `remainingMs` is asked before each request, so a caller's deadline covers them all. */
export interface StateReadOptions {
  readonly zones: boolean;
  /**
   * `false`: the zones (or pixels) of a light of known product only, not its colour, power and label (a caller that
   * holds those fresh). Ignored without `zones`, and for a device whose product is unknown or that is no light.
   */
  readonly state?: boolean;
  readonly remainingMs: () => number;
}

export class StateReader {
  /** Devices that answered GetColor with StateUnhandled: read as devices even while their product is unknown. */
  readonly notLights = new Set<string>();

  constructor(private readonly host: ReadHost) {}

  /**
   * The one state read: colour, power and label of a light (power and label of a device that is no light), and with
   * `zones` the zones of a multizone light, into the registry. Values are checked where replies become facts: a
   * kelvin outside what the product can show is clamped into its range. Rejects as the requester does
   * (REQUEST_TIMED_OUT, ...); LIGHTS_NOT_FOUND for a serial the registry does not know.
   */
  async read(serial: string, options: StateReadOptions): Promise<void> {
    const device = this.host.addressOf(serial);
    if (!device) throw new LightwireError('LIGHTS_NOT_FOUND', { selector: `id:${serial}` });
    const registry = this.host.registry;
    const product = registry.peek(serial)?.facts.product?.value;
    const range = product?.capabilities.kelvinRange ?? DEFAULT_KELVIN_RANGE;
    // What our own writes set is not replaced by a reply to a read sent before them (registry.mark()).
    const mark = registry.mark();
    if (product ? !product.capabilities.isLight : this.notLights.has(serial)) {
      await this.readDevice(serial, device, product, mark, options.remainingMs);
      return;
    }
    if (options.state === false && options.zones && product !== undefined && (product.capabilities.multizone || product.capabilities.matrix)) {
      if (product.capabilities.multizone) await this.readZones(serial, device, product, mark, options.remainingMs());
      else await this.readPixels(serial, device, product, mark, options.remainingMs());
      return;
    }
    let reply: ReplyOf<'GetColor'> | undefined;
    try {
      reply = await this.host.requester.get(device, 'GetColor', NO_PAYLOAD, { timeoutMs: options.remainingMs() });
    } catch (err) {
      // The first read runs before the product is known: a device that is no light says so (StateUnhandled).
      if (!(err instanceof LightwireError && err.code === 'UNHANDLED_BY_DEVICE')) throw err;
      this.notLights.add(serial);
    }
    if (reply === undefined) await this.readDevice(serial, device, product, mark, options.remainingMs);
    else {
      registry.update(
        serial,
        { color: withinKelvin(hsbkFromWire(reply.payload.color), range), power: powerFromWire(reply.payload.power), label: reply.payload.label },
        mark,
      );
    }
    if (options.zones && reply !== undefined && product?.capabilities.multizone) {
      await this.readZones(serial, device, product, mark, options.remainingMs());
    }
    if (options.zones && reply !== undefined && product?.capabilities.matrix) {
      await this.readPixels(serial, device, product, mark, options.remainingMs());
    }
  }

  /**
   * The pixels of a matrix light into the registry: one Get64 per band of rows for the whole chain (one for an 8 x 8
   * tile, two for 16 x 8). The tiles' sizes are the device's own word, read with its info (StateDeviceChain); a light
   * whose info read has not brought them yet is asked here (GetDeviceChain).
   */
  private async readPixels(serial: string, device: DeviceAddress, product: Product, mark: number, timeoutMs: number): Promise<void> {
    const requester = this.host.requester;
    const registry = this.host.registry;
    let chain = registry.peek(serial)?.facts.tiles?.value;
    if (chain === undefined) {
      chain = chainFromReply(await requester.get(device, 'GetDeviceChain', NO_PAYLOAD, { timeoutMs }));
      registry.update(serial, { tiles: chain });
    }
    if (chain.length === 0) return;
    const replies = (await Promise.all(pixelReads(chain).map((payload) => requester.getAll(device, 'Get64', payload, { timeoutMs })))).flat();
    const pixels = pixelsFromReplies(chain, replies);
    if (pixels === undefined) return;
    const range = product.capabilities.kelvinRange ?? DEFAULT_KELVIN_RANGE;
    let lastIn: Hsbk | undefined;
    let lastOut: Hsbk | undefined;
    const clamped = pixels.map((tile) => tile.map((z) => (z === lastIn ? lastOut! : (lastOut = withinKelvin((lastIn = z), range)))));
    registry.update(serial, { pixels: shareEqualTiles(clamped) }, mark);
  }

  /** A device that is no light (the LIFX Switch): power and label with the device messages (GetPower, GetLabel), and its relays. */
  private async readDevice(serial: string, device: DeviceAddress, product: Product | undefined, mark: number, remainingMs: () => number): Promise<void> {
    const timeoutMs = remainingMs();
    const requester = this.host.requester;
    const [power, label] = await Promise.all([
      requester.get(device, 'GetPower', NO_PAYLOAD, { timeoutMs }),
      requester.get(device, 'GetLabel', NO_PAYLOAD, { timeoutMs }),
    ]);
    this.host.registry.update(serial, { power: powerFromWire(power.payload.level), label: label.payload.label }, mark);
    if (product?.capabilities.relays) await this.readRelays(serial, remainingMs());
  }

  /** The zones of a multizone light (extended messages where its firmware has them) into the registry. */
  private async readZones(serial: string, device: DeviceAddress, product: Product, mark: number, timeoutMs: number): Promise<void> {
    const requester = this.host.requester;
    const replies = product.capabilities.extendedMultizone
      ? await requester.getAll(device, 'GetExtendedColorZones', NO_PAYLOAD, { timeoutMs })
      : await requester.getAll(device, 'GetColorZones', { startIndex: 0, endIndex: 255 }, { timeoutMs });
    const zones = zonesFromReplies(replies);
    const range = product.capabilities.kelvinRange ?? DEFAULT_KELVIN_RANGE;
    if (zones === undefined) return;
    // Zones that share one colour object (zonesFromReplies) still share it once clamped.
    let lastIn: Hsbk | undefined;
    let lastOut: Hsbk | undefined;
    const clamped = zones.map((z) => (z === lastIn ? lastOut! : (lastOut = withinKelvin((lastIn = z), range))));
    this.host.registry.update(serial, { zones: clamped }, mark);
  }

  /**
   * What a first read still lacks once the product is known (the state read ran before it was): the zones of a
   * multizone light, the relays of a Switch. Only those are asked, not the state again, so a new light's whole first
   * read fits its quiet burst (pacingQuietBurst) and is not held back by pacing. False when nothing could be asked
   * (a light forgotten, or its product not known yet).
   */
  async readMissingParts(serial: string, timeoutMs: number): Promise<boolean> {
    const device = this.host.addressOf(serial);
    const record = this.host.registry.peek(serial);
    const product = record?.facts.product?.value;
    if (device === undefined || record === undefined || product === undefined) return false;
    if (product.capabilities.multizone && record.facts.zones === undefined) {
      await this.readZones(serial, device, product, this.host.registry.mark(), timeoutMs);
    }
    if (product.capabilities.matrix && record.facts.pixels === undefined) {
      await this.readPixels(serial, device, product, this.host.registry.mark(), timeoutMs);
    }
    if (product.capabilities.relays && record.facts.relays === undefined) await this.readRelays(serial, timeoutMs);
    return true;
  }

  /**
   * Reads the relays of a LIFX Switch (GetRPower for relays 0 to RELAYS_MAX - 1 at once): resolves with the relays
   * that answered, by index; rejects (REQUEST_TIMED_OUT) when none did. The registry keeps, for a relay that did not
   * answer this time, the state it last reported: one lost reply does not make a relay vanish from the device.
   */
  async readRelays(serial: string, timeoutMs: number): Promise<readonly RelayFact[]> {
    const device = this.host.addressOf(serial);
    if (device === undefined) throw new LightwireError('LIGHTS_NOT_FOUND', { selector: `id:${serial}` });
    const requester = this.host.requester;
    const replies = await settledOrQuiet(
      Array.from({ length: RELAYS_MAX }, (_, relayIndex) => requester.get(device, 'GetRPower', { relayIndex }, { timeoutMs })),
      RELAY_QUIET_MS,
      () => new LightwireError('REQUEST_TIMED_OUT', { serial, message: 'GetRPower', timeoutMs: RELAY_QUIET_MS }),
    );
    const relays: RelayFact[] = [];
    for (const r of replies) {
      if (r.status === 'fulfilled') relays.push({ index: r.value.payload.relayIndex, on: r.value.payload.level !== 0 });
    }
    if (relays.length === 0) {
      const failure = replies.find((r): r is PromiseRejectedResult => r.status === 'rejected')?.reason as unknown;
      throw failure instanceof Error ? failure : new LightwireError('REQUEST_TIMED_OUT', { serial, message: 'GetRPower', timeoutMs });
    }
    relays.sort((a, b) => a.index - b.index);
    const known = this.host.registry.peek(serial)?.facts.relays?.value;
    let saved: readonly RelayFact[] = relays;
    if (known !== undefined && relays.length < RELAYS_MAX) {
      const kept = known.filter((k) => !relays.some((r) => r.index === k.index));
      if (kept.length > 0) saved = [...relays, ...kept].sort((a, b) => a.index - b.index);
    }
    this.host.registry.update(serial, { relays: saved });
    return relays;
  }
}

/**
 * A device answers GetRPower for the relays it has and stays silent about the others (a Dimmer Switch has 2 of the 4 a
 * Switch has, and nothing tells how many): once one relay has answered, the asks still open get RELAY_QUIET_MS after
 * the latest answer, then count as not answered; the read does not wait out their timeout. The four asks go out
 * together (within the pacer's burst), so a relay that exists answers with the others.
 */
export const RELAY_QUIET_MS = 250;

/** Like Promise.allSettled, but once one promise has fulfilled, the ones still open after `quietMs` without another
 * fulfilment count as rejected with `silent()` (they run on; their outcome is dropped). */
function settledOrQuiet<T>(promises: readonly Promise<T>[], quietMs: number, silent: () => Error): Promise<PromiseSettledResult<T>[]> {
  return new Promise((resolve) => {
    const results: (PromiseSettledResult<T> | undefined)[] = promises.map(() => undefined);
    let open = promises.length;
    let quiet: ReturnType<typeof setTimeout> | undefined;
    const finish = (): void => {
      if (quiet !== undefined) clearTimeout(quiet);
      open = -1;
      resolve(results.map((r) => r ?? { status: 'rejected', reason: silent() }));
    };
    promises.forEach((promise, i) => {
      promise.then(
        (value) => {
          if (open < 0) return;
          results[i] = { status: 'fulfilled', value };
          if (--open === 0) return finish();
          if (quiet !== undefined) clearTimeout(quiet);
          quiet = setTimeout(finish, quietMs);
        },
        (reason: unknown) => {
          if (open < 0) return;
          results[i] = { status: 'rejected', reason };
          if (--open === 0) finish();
        },
      );
    });
    if (open === 0) finish();
  });
}

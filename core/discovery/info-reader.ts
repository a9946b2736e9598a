// InfoReader: one job, turning a light's facts replies into registry facts: product and firmware (GetVersion,
// GetHostFirmware), group and location (https://lan.developer.lifx.com/docs/groups-and-locations), Wi-Fi signal and
// uptime (https://lan.developer.lifx.com/docs/information-messages), and with them the infrared level and the
// firmware effect running, which only lights with those capabilities have
// (https://lan.developer.lifx.com/docs/querying-the-device-for-data), a matrix light's tiles, and the button configuration
// of devices with buttons (core/discovery/buttons.ts). A product the registry does not know is
// handed to the capability prober. Sharing one read between callers stays with the client.

import { LightwireError } from '../errors.js';
import {
  ENUMS,
  enumName,
  fractionFromWire,
  nsToSeconds,
  signalQuality,
  signalToRssi,
  type FirmwareVersion,
  type KnownPacket,
  type MessageName,
  type Product,
  type ProductRegistry,
} from '../protocol/index.js';
import { NO_PAYLOAD, type DeviceAddress, type ReplyOf } from '../transport/requester.js';
import { buttonsFromReplies } from './buttons.js';
import { PRODUCT_CACHE_LIMIT, type CapabilityProber } from './capability-prober.js';
import type { FactValues, FirmwareInfo, GroupMembership, TileFact } from './registry.js';
import type { ReadHost } from './state-reader.js';
import { ValueCache } from './value-cache.js';

/** What a light's facts read asks, all at once. */
const INFO_READS = ['GetVersion', 'GetHostFirmware', 'GetGroup', 'GetLocation', 'GetWifiInfo', 'GetInfo'] as const satisfies readonly MessageName[];

/** What the facts reader needs of its client besides a reader's: the product registry its lights are looked up in. */
export interface InfoReadHost extends ReadHost {
  readonly products: ProductRegistry;
}

export class InfoReader {
  /** Resolved products are immutable: lights of the same model and firmware share one (of one registry). */
  private readonly products = new Map<string, Product>();
  /** The registry the cached products came from: a new one (a products file) empties the cache. */
  private productsOf: ProductRegistry | undefined;
  /**
   * Groups and locations, firmware and tile chains as read, one copy per distinct value: a fleet's lights share a few
   * groups, one location and a handful of firmware builds, and each would otherwise hold its own copy (ids, labels,
   * bigints: about 400 bytes a light).
   */
  private readonly memberships = new ValueCache<GroupMembership>();
  private readonly firmwares = new ValueCache<FirmwareInfo>();
  private readonly chains = new ValueCache<readonly TileFact[]>();

  /** @param report where a failure that is no coded error goes (the client's `error` event) */
  constructor(
    private readonly host: InfoReadHost,
    private readonly prober: CapabilityProber,
    private readonly report: (err: Error) => void,
  ) {}

  /** Reads product, firmware, label, group, location, wifi and uptime (then infrared and effect). Never rejects for a light's silence. */
  async read(serial: string, timeoutMs: number): Promise<void> {
    const device = this.host.addressOf(serial);
    if (!device) return;
    const registry = this.host.registry;
    // Group and location are what renaming writes too: a reply to a read sent before such a write does not undo it.
    const asked = registry.mark();
    // The six facts with one promise (getEach), not one per request: less held while they are in flight.
    const replies = await this.host.requester.getEach(device, INFO_READS, { timeoutMs });
    const version = this.replyOrNone(replies[0]!);
    const firmware = this.replyOrNone(replies[1]!);
    const group = this.replyOrNone(replies[2]!);
    const location = this.replyOrNone(replies[3]!);
    const wifi = this.replyOrNone(replies[4]!);
    const info = this.replyOrNone(replies[5]!);
    const facts: FactValues = {};
    let product: Product | undefined;
    const fw = firmware?.payload;
    if (fw) facts.firmware = this.firmwares.shared(`${fw.versionMajor}.${fw.versionMinor}@${fw.buildNs}`, { major: fw.versionMajor, minor: fw.versionMinor, buildNs: fw.buildNs });
    if (version !== undefined) {
      product = this.productOf(version.payload.vendor, version.payload.product, fw ? { major: fw.versionMajor, minor: fw.versionMinor } : null);
      // A model probed before keeps what it was found to do while it is probed again.
      if (!product.known) product = this.prober.known(product);
      facts.product = product;
    }
    if (group !== undefined) facts.group = this.membership(group.payload.group, group.payload.label, group.payload.updatedAtNs);
    if (location !== undefined) facts.location = this.membership(location.payload.location, location.payload.label, location.payload.updatedAtNs);
    if (wifi !== undefined) {
      // A float32 on the wire: a device may send NaN or infinity, which is no signal.
      const signal = Number.isFinite(wifi.payload.signal) ? wifi.payload.signal : 0;
      facts.wifi = { signal, rssi: signal > 0 ? signalToRssi(signal) : 0, quality: signalQuality(signal) };
    }
    if (info !== undefined) facts.uptimeS = nsToSeconds(info.payload.uptimeNs);
    // Saved as they arrived; a product the registry does not know (the vendor adds some every few months) is then
    // asked what it can do, and saved again with it.
    registry.update(serial, facts, asked);
    if (product !== undefined && !product.known) {
      const probed = await this.prober.probe(serial, device, product, timeoutMs);
      if (probed !== product) registry.update(serial, { product: (product = probed) });
    }
    const caps = product?.capabilities;
    // Infrared and the effect are what our writes set too: a reply to a read sent before a write does not undo it.
    const mark = registry.mark();
    if (caps?.infrared) {
      const ir = await this.readOrNone(device, 'GetInfrared', timeoutMs);
      if (ir !== undefined) registry.update(serial, { infrared: fractionFromWire(ir.payload.brightness) }, mark);
    }
    // A matrix light's tiles, each its own size (a Candle is 5 x 6, a Ceiling Capsule 16 x 8): the device says,
    // https://lan.developer.lifx.com/docs/tile-messages#statedevicechain---message-702
    if (caps?.matrix) {
      const chain = await this.readOrNone(device, 'GetDeviceChain', timeoutMs);
      if (chain !== undefined) {
        const { tileDevices, tileDevicesCount } = chain.payload;
        const tiles = tileDevices.slice(0, tileDevicesCount).map((t) => Object.freeze({ width: t.width, height: t.height }));
        registry.update(serial, { tiles: this.chains.shared(tiles.map((t) => `${t.width}x${t.height}`).join(','), tiles) });
      }
    }
    // The button configuration of a device with buttons (the Switch, Dimmer Switch, Luna, Mirror).
    if (caps?.buttons) {
      const [state, config] = await Promise.all([this.readOrNone(device, 'GetButton', timeoutMs), this.readOrNone(device, 'GetButtonConfig', timeoutMs)]);
      if (state !== undefined) registry.update(serial, { buttons: buttonsFromReplies(state.payload, config?.payload) });
    }
    // The firmware effect running, for List Lights' `effect`: one our tables do not name is shown by its number.
    if (caps?.multizone) {
      const fx = await this.readOrNone(device, 'GetMultiZoneEffect', timeoutMs);
      if (fx !== undefined) registry.update(serial, { effect: enumName(ENUMS.MultiZoneEffectType, fx.payload.settings.type) }, mark);
    } else if (caps?.matrix) {
      const fx = await this.readOrNone(device, 'GetTileEffect', timeoutMs);
      if (fx !== undefined) registry.update(serial, { effect: enumName(ENUMS.TileEffectType, fx.payload.settings.type) }, mark);
    }
  }

  /** A group or location as read, the copy shared by every light that reports the same (the id is 32 hex digits). */
  private membership(id: string, label: string, updatedAtNs: bigint): GroupMembership {
    return this.memberships.shared(`${id}${updatedAtNs}:${label}`, { id, label, updatedAtNs });
  }

  /** A read without a payload: its reply, or undefined when it failed (a failure that is no coded error is reported). */
  private readOrNone<N extends 'GetInfrared' | 'GetMultiZoneEffect' | 'GetTileEffect' | 'GetDeviceChain' | 'GetButton' | 'GetButtonConfig'>(device: DeviceAddress, name: N, timeoutMs: number): Promise<ReplyOf<N> | undefined> {
    return this.host.requester.get(device, name, NO_PAYLOAD as never, { timeoutMs }).then(undefined, (err: unknown) => {
      if (!(err instanceof LightwireError)) this.report(err as Error);
      return undefined;
    }) as Promise<ReplyOf<N> | undefined>;
  }

  /** A reply of the facts read, or undefined when it failed (a failure that is no coded error is reported). */
  private replyOrNone<R extends KnownPacket>(reply: R | Error): R | undefined {
    if (!(reply instanceof Error)) return reply;
    if (!(reply instanceof LightwireError)) this.report(reply);
    return undefined;
  }

  /** The product of a (vendor, product, firmware), shared by every light of that model. */
  private productOf(vendor: number, productId: number, firmware: FirmwareVersion | null): Product {
    const registry = this.host.products;
    if (registry !== this.productsOf) {
      this.products.clear();
      this.productsOf = registry;
    }
    const key = firmware === null ? `${vendor}:${productId}` : `${vendor}:${productId}@${firmware.major}.${firmware.minor}`;
    let product = this.products.get(key);
    if (product === undefined) {
      product = registry.get(vendor, productId, firmware === null ? null : Object.freeze(firmware));
      if (this.products.size < PRODUCT_CACHE_LIMIT) this.products.set(key, product);
    }
    return product;
  }
}

// What a virtual device of each product is built like, which the vendor's product registry does not say: the zones of
// a matrix tile (width x height, which a real device reports in StateDeviceChain,
// https://lan.developer.lifx.com/docs/tile-messages), the tiles of a chain, a strip's zones, and the buttons and relays
// of button devices. The facts are lifx-emulator's products/specs.yml
// (https://github.com/Djelibeybi/lifx-emulator, packages/lifx-emulator-core/src/lifx_emulator/products/specs.yml at
// 87126a7be990023046fc68bc20a4fe47e89e2ce6, 2026-08-11); where we differ, the entry says why.
// A fleet file may override each of them per light (fleet-file.ts).

import type { Product } from '../protocol/products.js';

export interface ProductSpec {
  /** Zones across and down one matrix tile. */
  readonly tileWidth?: number;
  readonly tileHeight?: number;
  /** Tiles of a new virtual device (a chain: the LIFX Tile). */
  readonly tileCount?: number;
  /** Zones of a new virtual strip. */
  readonly zoneCount?: number;
  /** Buttons of a button device. */
  readonly buttonCount?: number;
  /** Relays of a switch. */
  readonly relayCount?: number;
}

const tile = (tileWidth: number, tileHeight: number, extra: ProductSpec = {}): ProductSpec => ({ tileWidth, tileHeight, ...extra });
const strip = (zoneCount: number, extra: ProductSpec = {}): ProductSpec => ({ zoneCount, ...extra });

const CANDLE = tile(5, 6);
const SPOT = tile(3, 1);
const PATH = tile(3, 2);
const CEILING = tile(8, 8);
/** The Ceiling 13x26" (Capsule). */
const CAPSULE = tile(16, 8);
const TUBE = tile(5, 11);
const LUNA = tile(7, 5, { buttonCount: 4 });
/** specs.yml calls 5 x 10 provisional: front zones 0-24, rear 25-49, one Get64 for all. */
const MIRROR = tile(5, 10, { buttonCount: 4 });
/**
 * The LIFX Switch: specs.yml says 2 relays and 2 buttons for every switch; the simulator has modelled the four-gang
 * Switch (4 of each) from the start, and fleets and tests rely on it, so it stays.
 */
const SWITCH: ProductSpec = { relayCount: 4, buttonCount: 4 };
/** The Dimmer Switch: 2 relays and 2 buttons (specs.yml). */
const DIMMER_SWITCH: ProductSpec = { relayCount: 2, buttonCount: 2 };

/** By product id (vendor 1). */
export const PRODUCT_SPECS: ReadonlyMap<number, ProductSpec> = new Map<number, ProductSpec>([
  // strips (specs.yml default_zone_count)
  [31, strip(16)], [32, strip(16)], [117, strip(16)], [118, strip(16)],
  [38, strip(80)], [56, strip(80)], [119, strip(80)], [120, strip(80)],
  [141, strip(24)], [142, strip(24)], [205, strip(24)], [206, strip(24)],
  // 144's default is 20 in specs.yml, below its own minimum of 36: the String's 36 is used, as for 143.
  [143, strip(36)], [144, strip(36)], [203, strip(36)], [204, strip(36)],
  [151, strip(60)], [152, strip(60)], [161, strip(60)], [162, strip(60)],
  [207, strip(16, { buttonCount: 1 })], [208, strip(16, { buttonCount: 1 })],
  [211, strip(30)], [213, strip(30)], [214, strip(30)], [300, strip(30)],
  // matrices
  [55, tile(8, 8, { tileCount: 5 })],
  [57, CANDLE], [68, CANDLE], [137, CANDLE], [138, CANDLE], [185, CANDLE], [186, CANDLE], [215, CANDLE], [216, CANDLE],
  [171, SPOT], [172, SPOT], [221, SPOT],
  [173, PATH], [174, PATH], [222, PATH], [229, PATH],
  [176, CEILING], [177, CEILING], [265, CEILING], [266, CEILING],
  [201, CAPSULE], [202, CAPSULE],
  [217, TUBE], [218, TUBE],
  [219, LUNA], [220, LUNA],
  [267, MIRROR], [268, MIRROR],
  // button devices that are no lights
  [70, SWITCH], [71, SWITCH], [84, SWITCH], [89, SWITCH], [115, SWITCH], [116, SWITCH],
  [226, DIMMER_SWITCH],
]);

/** A matrix the table does not know (a newer product): one 8 x 8 tile, as the LIFX Tile's. */
export const DEFAULT_TILE = Object.freeze({ width: 8, height: 8 });
export const DEFAULT_BUTTON_COUNT = 4;
export const DEFAULT_RELAY_COUNT = 4;

/** The spec of a product (empty for one the table does not know, or of another vendor). */
export function productSpec(product: Pick<Product, 'vendorId' | 'productId'>): ProductSpec {
  return (product.vendorId === 1 ? PRODUCT_SPECS.get(product.productId) : undefined) ?? {};
}

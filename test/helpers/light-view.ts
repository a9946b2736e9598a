import type { LightView } from '../../core/control/types.js';
import { PRODUCTS } from '../../core/protocol/index.js';

export type LightState = Partial<Pick<LightView, 'power' | 'color' | 'infrared' | 'zones' | 'online'>>;

/** A LightView of product `pid` (vendor 1) with nothing read yet, overlaid by `state`. */
export function lightOf(pid: number, state: LightState = {}, serial = 'd073d5000001'): LightView {
  const product = PRODUCTS.get(1, pid);
  return {
    serial,
    label: product.name,
    online: true,
    group: null,
    location: null,
    product,
    capabilities: product.capabilities,
    power: null,
    color: null,
    infrared: null,
    zones: null,
    matrix: null,
    lastSeenAt: 0,
    address: '127.0.0.2',
    effect: 'OFF',
    relays: null,
    pixels: null,
    firmware: null,
    wifi: null,
    ambientLux: null,
    buttons: null,
    ...state,
  };
}

// How a virtual device answers one message: a table from message name to a handler and the capability
// family that must be present for the device to handle it at all (lan-protocol.md §8).

import type { MessageName, Payload } from '../../protocol/messages/index.js';
import type { Capabilities } from '../../protocol/products.js';
import type { DeviceModel } from '../model.js';

/** One reply datagram to build: a State message and its payload in wire units. */
export type Reply = { [N in MessageName]: { readonly name: N; readonly payload: Payload<N> } }[MessageName];

export function reply<N extends MessageName>(name: N, payload: Payload<N>): Reply {
  return { name, payload } as Reply;
}

export interface HandlerContext {
  readonly model: DeviceModel;
  readonly nowMs: number;
  /** The request asked for its State (res_required); a Get answers regardless (§1.4). */
  readonly resRequired: boolean;
  /** The UDP port the light advertises in StateService. */
  readonly port: number;
}

export const FAMILIES = {
  device: () => true,
  light: (c: Capabilities) => c.isLight,
  infrared: (c: Capabilities) => c.isLight && c.infrared,
  hev: (c: Capabilities) => c.hev,
  multizone: (c: Capabilities) => c.multizone,
  extendedMultizone: (c: Capabilities) => c.multizone && c.extendedMultizone,
  matrix: (c: Capabilities) => c.matrix,
  relays: (c: Capabilities) => c.relays,
  buttons: (c: Capabilities) => c.buttons,
} as const satisfies Record<string, (caps: Capabilities) => boolean>;

export type Family = keyof typeof FAMILIES;

export interface Handler<N extends MessageName> {
  readonly family: Family;
  /** Returns the replies in order; Sets build their State before changing anything (pre-change state, §5.5). */
  readonly run: (ctx: HandlerContext, payload: Payload<N>) => Reply[];
}

export type HandlerTable = { readonly [N in MessageName]?: Handler<N> };

/** The State before a Set changes anything, only when asked for (§1.7 step 4). */
export function before(ctx: HandlerContext, build: () => Reply[], change: () => void): Reply[] {
  const replies = ctx.resRequired ? build() : [];
  change();
  return replies;
}

/** The State after the change: label, group and location (photons' mimic, §1.7 step 4). */
export function after(ctx: HandlerContext, build: () => Reply[], change: () => void): Reply[] {
  change();
  return ctx.resRequired ? build() : [];
}

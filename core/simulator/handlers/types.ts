// How a virtual device answers one message: a table from message name to a handler and the capability
// family that must be present for the device to handle it at all. A Get answers even without res_required
// (https://lan.developer.lifx.com/docs/communicating-with-device); a Set replies with the old state
// (https://lan.developer.lifx.com/docs/changing-a-device).

import { MESSAGES, type MessageName, type MessageSpec, type Payload } from '../../protocol/messages/index.js';
import type { Capabilities } from '../../protocol/products.js';
import type { DeviceModel } from '../model.js';

/** Bytes to put over one field of an encoded reply, as a device echoes what it was sent (a label's 32 bytes). */
export interface Verbatim {
  readonly field: string;
  readonly bytes: Uint8Array;
}

/** One reply datagram to build: a State message, its payload in wire units and any field sent back byte for byte. */
export type Reply = {
  [N in MessageName]: { readonly name: N; readonly payload: Payload<N>; readonly verbatim?: readonly Verbatim[] };
}[MessageName];

export function reply<N extends MessageName>(name: N, payload: Payload<N>, verbatim: readonly Verbatim[] = []): Reply {
  return (verbatim.length === 0 ? { name, payload } : { name, payload, verbatim }) as Reply;
}

/** Where a named field of a message's payload is: its offset and size, from the message table. */
export function fieldSlot(name: MessageName, field: string): { readonly offset: number; readonly sizeBytes: number } {
  const payload = (MESSAGES[name] as MessageSpec).payload;
  const offset = payload.offsets.get(field);
  const spec = payload.fields.find((f) => f.name === field);
  if (offset === undefined || spec === undefined || !('type' in spec)) throw new Error(`${name} has no field ${field}`);
  return { offset, sizeBytes: spec.type.sizeBytes };
}

/** `bytes` over `field`, or nothing when there are none. */
export function asSent(field: string, bytes: Uint8Array | null): Verbatim[] {
  return bytes === null ? [] : [{ field, bytes }];
}

/** A field's bytes exactly as the request carried them, zeros for those a short payload left out (as the codec reads them). */
export function rawField(ctx: HandlerContext, name: MessageName, field: string): Uint8Array {
  const { offset, sizeBytes } = fieldSlot(name, field);
  const out = new Uint8Array(sizeBytes);
  out.set(ctx.payloadBytes.subarray(offset, offset + sizeBytes));
  return out;
}

export interface HandlerContext {
  readonly model: DeviceModel;
  readonly nowMs: number;
  /** The request asked for its State (res_required); a Get answers regardless. */
  readonly resRequired: boolean;
  /** The UDP port the light advertises in StateService. */
  readonly port: number;
  /** The request's payload bytes as received (what a device stores verbatim, such as a label). */
  readonly payloadBytes: Uint8Array;
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
  /** Returns the replies in order; Sets build their State before changing anything (pre-change state). */
  readonly run: (ctx: HandlerContext, payload: Payload<N>) => Reply[];
}

export type HandlerTable = { readonly [N in MessageName]?: Handler<N> };

/** The State before a Set changes anything, only when asked for. */
export function before(ctx: HandlerContext, build: () => Reply[], change: () => void): Reply[] {
  const replies = ctx.resRequired ? build() : [];
  change();
  return replies;
}

/** The State after the change: label, group and location (photons' mimic). */
export function after(ctx: HandlerContext, build: () => Reply[], change: () => void): Reply[] {
  change();
  return ctx.resRequired ? build() : [];
}

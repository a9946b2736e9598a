// Every message a virtual device handles, and the one function that answers a decoded packet.

import type { KnownPacket } from '../../protocol/codec.js';
import type { MessageName } from '../../protocol/messages/index.js';
import { DEVICE_HANDLERS } from './device.js';
import { LIGHT_HANDLERS } from './light.js';
import { MATRIX_HANDLERS } from './matrix.js';
import { MULTIZONE_HANDLERS } from './multizone.js';
import { SENSOR_HANDLERS } from './sensor.js';
import { SWITCH_HANDLERS } from './switch.js';
import { FAMILIES, reply, type Handler, type HandlerContext, type HandlerTable, type Reply } from './types.js';

export const HANDLERS: HandlerTable = Object.freeze({
  ...DEVICE_HANDLERS,
  ...LIGHT_HANDLERS,
  ...MULTIZONE_HANDLERS,
  ...MATRIX_HANDLERS,
  ...SWITCH_HANDLERS,
  ...SENSOR_HANDLERS,
});

/** Whether this device handles a message (by name; null = a type the tables do not know). */
export function handles(ctx: Pick<HandlerContext, 'model'>, name: MessageName | null): boolean {
  if (name === null) return false;
  const handler = HANDLERS[name] as Handler<MessageName> | undefined;
  return handler !== undefined && FAMILIES[handler.family](ctx.model.product.capabilities);
}

/**
 * Replies are never answered, not even with StateUnhandled: a Switch's StateUnhandled that finds its way back to
 * a Switch (a client sharing the fleet's port, a spoofed sender) would otherwise bounce between them for ever.
 */
const NEVER_UNHANDLED: ReadonlySet<MessageName | null> = new Set<MessageName>(['Acknowledgement', 'StateUnhandled']);

/**
 * The State replies to a packet (the ack is the caller's). An unsupported message is ignored, except by
 * products that answer StateUnhandled (the Switch; lights are not documented to send it).
 */
export function respond(ctx: HandlerContext, packet: KnownPacket | { readonly name: null; readonly header: { readonly type: number } }): Reply[] {
  if (packet.name !== null && handles(ctx, packet.name)) {
    const handler = HANDLERS[packet.name] as Handler<MessageName>;
    return handler.run(ctx, packet.payload as never);
  }
  if (!ctx.model.product.capabilities.unhandled || NEVER_UNHANDLED.has(packet.name)) return [];
  return [reply('StateUnhandled', { unhandledType: packet.header.type })];
}

// Every message Lightwire speaks, by name. Type numbers live only in the namespace tables; the reverse map
// and the TypeScript types are derived here.

import type { StructValue } from '../field-types.js';
import { DEVICE } from './device.js';
import { LIGHT } from './light.js';
import type { MessageSpec } from './message.js';
import { MULTIZONE } from './multizone.js';
import { SWITCH } from './switch.js';
import { TILE } from './tile.js';

export const MESSAGES = { ...DEVICE, ...LIGHT, ...MULTIZONE, ...TILE, ...SWITCH } as const;

export type Messages = typeof MESSAGES;
export type MessageName = keyof Messages;
export type Payload<N extends MessageName> = Messages[N] extends MessageSpec<number, infer F> ? StructValue<F> : never;
export type TypeNumber<N extends MessageName> = Messages[N]['type'];

export const MESSAGE_NAMES = Object.freeze(Object.keys(MESSAGES) as MessageName[]);

/** type number -> message name, derived from the tables; a duplicate number is a startup error. */
export const MESSAGE_NAME_BY_TYPE: ReadonlyMap<number, MessageName> = (() => {
  const byType = new Map<number, MessageName>();
  for (const name of MESSAGE_NAMES) {
    const { type } = MESSAGES[name] as MessageSpec;
    const clash = byType.get(type);
    if (clash !== undefined) throw new Error(`message type ${type} is declared twice: ${clash} and ${name}`);
    byType.set(type, name);
  }
  return byType;
})();

export function isMessageName(name: string): name is MessageName {
  return Object.hasOwn(MESSAGES, name);
}

export { ENUMS } from './structs.js';
export type { MessageSpec } from './message.js';

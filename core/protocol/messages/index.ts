// Every message Lightwire speaks, by name. Type numbers live only in the namespace tables; the reverse map
// and the TypeScript types are derived here.

import type { StructValue } from '../field-types.js';
import { DEVICE } from './device.js';
import { LIGHT } from './light.js';
import type { MessageSpec } from './message.js';
import { MULTIZONE } from './multizone.js';
import { SENSOR } from './sensor.js';
import { SWITCH } from './switch.js';
import { TILE } from './tile.js';

export const MESSAGES = { ...DEVICE, ...LIGHT, ...MULTIZONE, ...TILE, ...SWITCH, ...SENSOR } as const;

export type Messages = typeof MESSAGES;
export type MessageName = keyof Messages;
export type Payload<N extends MessageName> = Messages[N] extends MessageSpec<number, infer F> ? StructValue<F> : never;
export type TypeNumber<N extends MessageName> = Messages[N]['type'];
/** The State messages that answer N (never for a message that gets none). */
export type ReplyName<N extends MessageName> = Messages[N]['replies'][number] & MessageName;

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

/**
 * Every declared reply is a message of the tables, and every field a multi-reply rule names is one of the request's
 * (countField, fromField, toField) or of each reply's (identity): a typo is a startup error, not a request that
 * never completes.
 */
for (const name of MESSAGE_NAMES) {
  const spec = MESSAGES[name] as MessageSpec;
  const fieldsOf = (n: string): readonly (string | undefined)[] => (MESSAGES[n as MessageName] as MessageSpec).payload.fields.map((f) => f.name);
  for (const reply of spec.replies) if (!Object.hasOwn(MESSAGES, reply)) throw new Error(`${name} declares reply ${reply}, which is no message`);
  const multi = spec.multi;
  if (multi === undefined) continue;
  if (spec.replies.length === 0) throw new Error(`${name} has a multi-reply rule but no reply`);
  const asked = multi.until === 'count' ? [multi.countField] : multi.until === 'zones' ? [multi.fromField, multi.toField].filter((f) => f !== undefined) : [];
  for (const f of asked) if (!fieldsOf(name).includes(f)) throw new Error(`${name}'s multi-reply rule names ${f}, which it has no field for`);
  for (const reply of spec.replies) {
    for (const f of multi.identity) if (!fieldsOf(reply).includes(f)) throw new Error(`${name}'s multi-reply identity names ${f}, which ${reply} has no field for`);
  }
}

export function isMessageName(name: string): name is MessageName {
  return Object.hasOwn(MESSAGES, name);
}

export { BUTTON_TARGETS, ENUMS, enumName, type ButtonTargetSpec } from './structs.js';
export type { MessageSpec, MultiReply } from './message.js';

// A message is data: a type number, an ordered payload field table and, for requests, the State messages the
// device answers with and, for requests answered by several, when the exchange is complete (as photons puts
// `multi=` on the message). Encode/decode/size come from the table; the requester's matching from the replies.

import { struct, type FieldSpec, type StructType } from '../field-types.js';

/**
 * How a request answered by several messages ends. Reply payload fields are named by `identity` (a reply seen again
 * with the same values, after a retransmission, is a duplicate); request payload fields by `fromField` and friends.
 */
export type MultiReply =
  /** An unknown number of replies: the exchange ends a gap (multiReplyGapMs) after the last one. */
  | { readonly until: 'gap'; readonly identity: readonly string[] }
  /**
   * Zone replies (count, index and one colour, 8 colours, or colorsCount colours each) until every zone from the
   * request's `fromField` to its `toField` (all of them when absent) that the light has is covered.
   */
  | { readonly until: 'zones'; readonly identity: readonly string[]; readonly fromField?: string; readonly toField?: string }
  /** Up to the request's `countField` replies: complete at that many, or a gap after the last when fewer come. */
  | { readonly until: 'count'; readonly identity: readonly string[]; readonly countField: string };

export interface MessageSpec<T extends number = number, F extends readonly FieldSpec[] = readonly FieldSpec[], R extends string = string> {
  readonly type: T;
  readonly payload: StructType<F>;
  /**
   * The State messages a Get produces, or a Set produces when res_required is set (empty for every other message).
   * Any of them answers the request; index.ts checks that each is a message of the tables.
   */
  readonly replies: readonly R[];
  /** Several replies, and when they are complete; absent: the first reply completes the exchange. */
  readonly multi?: MultiReply;
}

export interface MessageOptions<R extends string> {
  /** The reply, or the replies any of which may answer (GetColorZones: StateZone or StateMultiZone). */
  readonly reply?: R | readonly R[];
  readonly multi?: MultiReply;
}

const NONE: readonly never[] = Object.freeze([]);

export function message<const T extends number, const F extends readonly FieldSpec[], const R extends string = never>(
  type: T,
  fields: F,
  options: MessageOptions<R> = {},
): MessageSpec<T, F, R> {
  const reply = options.reply;
  const replies: readonly R[] = reply === undefined ? NONE : Object.freeze(typeof reply === 'string' ? [reply] : [...reply]);
  const payload = struct(fields);
  return options.multi === undefined ? { type, payload, replies } : { type, payload, replies, multi: Object.freeze(options.multi) };
}

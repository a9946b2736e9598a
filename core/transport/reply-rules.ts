// Which replies answer a request and when its exchange is complete, compiled once per message from the message
// tables (MessageSpec.replies and .multi): the requester matches and ends exchanges by these, not by names of its
// own. Multi-reply requests: https://lan.developer.lifx.com/docs/multizone-light-control (zones) and
// https://lan.developer.lifx.com/docs/tile-control (Get64), https://lan.developer.lifx.com/docs/querying-the-device-for-data (GetService).

import { MESSAGES, type KnownPacket, type MessageName, type MessageSpec, type MultiReply } from '../protocol/index.js';

/** The replies of a request, and how to tell that they are complete. */
export interface ReplyRule {
  /** The request's type number (StateUnhandled names it). */
  readonly type: number;
  /** The messages that answer it (none: only an Acknowledgement or StateUnhandled matches). */
  readonly names: ReadonlySet<MessageName>;
  /** Identity of one reply, to drop duplicates after retransmits; undefined: any second reply is one. */
  readonly key: ((reply: KnownPacket) => string) | undefined;
  /** Complete when true; undefined: a single reply completes (or, with `gap`, only the gap does). */
  readonly complete: ((request: Record<string, unknown>, replies: readonly KnownPacket[]) => boolean) | undefined;
  /** Replies of an unknown count: the exchange also ends multiReplyGapMs after the last (photons' gap_between_results). */
  readonly gap: boolean;
}

/** Zones one reply carries: StateZone one colour, StateMultiZone eight, StateExtendedColorZones colorsCount. */
function zoneRange(reply: KnownPacket): { count: number; first: number; n: number } {
  const p = reply.payload as Readonly<Record<string, unknown>>;
  const n = typeof p.colorsCount === 'number' ? p.colorsCount : Array.isArray(p.colors) ? p.colors.length : 1;
  return { count: p.count as number, first: p.index as number, n };
}

/** Whether the replies cover zones start to end (as far as the light has zones). */
export function zonesCovered(start: number, end: number, replies: readonly KnownPacket[]): boolean {
  if (replies.length === 0) return false;
  const count = zoneRange(replies[0]!).count;
  const last = Math.min(end, count - 1);
  if (count === 0 || last < start) return true;
  const seen = new Uint8Array(last - start + 1);
  for (const reply of replies) {
    const r = zoneRange(reply);
    for (let z = r.first; z < r.first + r.n; z++) if (z >= start && z <= last) seen[z - start] = 1;
  }
  return seen.every((v) => v === 1);
}

function identityKey(fields: readonly string[]): (reply: KnownPacket) => string {
  if (fields.length === 1) {
    const f = fields[0]!;
    return (reply) => `${reply.name}:${String((reply.payload as Readonly<Record<string, unknown>>)[f])}`;
  }
  return (reply) => `${reply.name}:${fields.map((f) => String((reply.payload as Readonly<Record<string, unknown>>)[f])).join(':')}`;
}

function completion(multi: MultiReply): ReplyRule['complete'] {
  switch (multi.until) {
    case 'gap':
      return undefined;
    case 'zones': {
      const { fromField, toField } = multi;
      return (req, replies) =>
        zonesCovered(fromField === undefined ? 0 : (req[fromField] as number), toField === undefined ? 0xffff : (req[toField] as number), replies);
    }
    case 'count': {
      const field = multi.countField;
      return (req, replies) => replies.length >= (req[field] as number);
    }
  }
}

function compile(name: MessageName): ReplyRule {
  const spec = MESSAGES[name] as MessageSpec;
  const names = new Set(spec.replies as readonly MessageName[]);
  const multi = spec.multi;
  return Object.freeze({
    type: spec.type,
    names,
    key: multi === undefined ? undefined : identityKey(multi.identity),
    complete: multi === undefined ? undefined : completion(multi),
    // A count is a most: fewer may come (a chain shorter than asked), so the gap ends those.
    gap: multi !== undefined && multi.until !== 'zones',
  });
}

const RULES = new Map<MessageName, ReplyRule>();

/** The rule of a request, compiled from its table entry on first use. */
export function replyRule(name: MessageName): ReplyRule {
  let rule = RULES.get(name);
  if (rule === undefined) RULES.set(name, (rule = compile(name)));
  return rule;
}

/** Whether a packet may belong to an exchange of this rule: an ack, a refusal, or one of its replies. */
export function wants(rule: ReplyRule, packet: KnownPacket): boolean {
  return packet.name === 'Acknowledgement' || packet.name === 'StateUnhandled' || rule.names.has(packet.name);
}

// What the client knows about each light, keyed by serial: where it is, when it was last seen, whether
// it is online, and each fact with the time it was read. Emits added / changed / offline / online.

import { EventEmitter } from 'node:events';
import type { ButtonsFact } from './buttons.js';
import { sameHsbk, type FirmwareVersion, type Hsbk, type PowerState, type Product, type SignalQuality } from '../protocol/index.js';

export interface Fact<T> {
  readonly value: T;
  /** Epoch ms when the value was read from the light. */
  readonly readAt: number;
}

export interface GroupMembership {
  /** 32 hex digits. */
  readonly id: string;
  /** The label this light carries for the group; see LightRegistry.groupLabel for the resolved one. */
  readonly label: string;
  readonly updatedAtNs: bigint;
}

export interface WifiInfo {
  readonly signal: number;
  readonly rssi: number;
  readonly quality: SignalQuality;
}

export interface FirmwareInfo extends FirmwareVersion {
  readonly buildNs: bigint;
}

/** One relay of a LIFX Switch: 0-based index, and whether it is on. */
export interface RelayFact {
  readonly index: number;
  readonly on: boolean;
}

/** One tile of a matrix light as the device reports it (StateDeviceChain): its zones across and down. */
export interface TileFact {
  readonly width: number;
  readonly height: number;
}

export interface LightFacts {
  readonly label?: Fact<string>;
  readonly power?: Fact<PowerState>;
  readonly color?: Fact<Hsbk>;
  readonly product?: Fact<Product>;
  readonly firmware?: Fact<FirmwareInfo>;
  readonly group?: Fact<GroupMembership>;
  readonly location?: Fact<GroupMembership>;
  readonly wifi?: Fact<WifiInfo>;
  readonly uptimeS?: Fact<number>;
  readonly infrared?: Fact<number>;
  /** Colour of each zone, multizone lights. */
  readonly zones?: Fact<readonly Hsbk[]>;
  /** Colour of each pixel of each tile, row by row from the top left, matrix lights (Get64). */
  readonly pixels?: Fact<readonly (readonly Hsbk[])[]>;
  /** The firmware effect running (MOVE, MORPH, FLAME, SKY, COLOR_SWEEP) or OFF; one our tables cannot name, by its number. */
  readonly effect?: Fact<string>;
  /** Relays of a LIFX Switch, by index. */
  readonly relays?: Fact<readonly RelayFact[]>;
  /** The tiles of a matrix light, as the device reports them (StateDeviceChain), never from a product table. */
  readonly tiles?: Fact<readonly TileFact[]>;
  /** The ambient light sensor's raw reading (lux), lights that answer SensorGetAmbientLight only. */
  readonly ambientLux?: Fact<number>;
  /** Button configuration of a device with buttons (decoded StateButton and StateButtonConfig). */
  readonly buttons?: Fact<ButtonsFact>;
}

export interface LightRecord {
  readonly serial: string;
  readonly address: string;
  readonly port: number;
  /** Epoch ms. */
  readonly firstSeenAt: number;
  /** Epoch ms of the last packet from this light. */
  readonly lastSeenAt: number;
  readonly online: boolean;
  /** Consecutive failed reads. */
  readonly misses: number;
  /** Grows with every change to the record (seen, facts, online state): a cheap test that a copy is current. */
  readonly revision: number;
  readonly facts: LightFacts;
}

/** Fact values as read, before they get their read time. */
export type FactValues = { -readonly [K in keyof LightFacts]?: NonNullable<LightFacts[K]>['value'] };

export interface RegistryEvents {
  added: [LightRecord];
  changed: [LightRecord, readonly string[]];
  offline: [LightRecord];
  online: [LightRecord];
}

/** A record as the registry keeps it: its fields change in place, its facts object never does (it is replaced, so
 * every copy handed out shares it: a copy costs the record's dozen fields, not its facts as well). */
type MutableRecord = { -readonly [K in keyof LightRecord]: LightRecord[K] };

const NO_FACTS: LightFacts = Object.freeze({});

/**
 * A fact as the registry keeps it. Every fact of one read is made with the same read time, and they share that one
 * number: an epoch in ms is no small integer, and V8 gives such a number a box of its own in each object it is stored
 * in, unless the field has held something else than numbers too (then it stores a reference to the one box). The
 * fact made with a null read time below, kept as long as the registry's code is, keeps the field so; ten facts of a
 * light then hold one number, not ten (160 bytes a light).
 */
function fact<T>(value: T, readAt: number): Fact<T> {
  return Object.freeze({ value, readAt });
}

/**
 * Deep equality of fact values (plain objects, arrays, primitives and bigints). Every background read compares each
 * fact it read with the one held, so it builds no key lists and no closures; colours, the most compared (a strip's
 * zones), go by name instead (SAME_FACT).
 */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameValue(a[i], b[i])) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let keys = 0;
  for (const k in x) {
    if (!Object.hasOwn(x, k)) continue;
    if (!Object.hasOwn(y, k) || !sameValue(x[k], y[k])) return false;
    keys++;
  }
  for (const k in y) if (Object.hasOwn(y, k)) keys--;
  return keys === 0;
}

function sameZones(a: readonly Hsbk[], b: readonly Hsbk[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!sameHsbk(a[i]!, b[i]!)) return false;
  return true;
}

function samePixels(a: readonly (readonly Hsbk[])[], b: readonly (readonly Hsbk[])[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!sameZones(a[i]!, b[i]!)) return false;
  return true;
}

/** How a fact's new value is compared with the one held: colours (a strip's zones, on every refresh) by name. */
const SAME_FACT: { readonly [K in keyof LightFacts]?: (a: never, b: never) => boolean } = { color: sameHsbk, zones: sameZones, pixels: samePixels };

/** The facts a write sets; a read may not replace them while the write's transition runs. */
export type WrittenFact = 'power' | 'color' | 'zones' | 'pixels' | 'infrared';

/** When a write set a fact (a mark()) and until when (registry clock, ms) its transition runs. */
interface Pin {
  readonly mark: number;
  readonly untilMs: number;
}

export class LightRegistry extends EventEmitter<RegistryEvents> {
  /** Keeps fact()'s read time a field that may hold more than numbers (see fact()); never handed out. */
  private static readonly anyReadAt: Fact<undefined> = fact(undefined, null as unknown as number);
  private readonly lights = new Map<string, MutableRecord>();
  /** peekAll()'s order, dropped when a light is added or removed. */
  private sorted: MutableRecord[] | undefined;
  /** Per light, the facts our own writes set: a read sent before the write, or taken mid-transition, is stale. */
  private readonly pins = new Map<string, Map<string, Pin>>();
  private marks = 0;

  constructor(
    private readonly offlineAfterMisses: number,
    private readonly clock: () => number = () => Date.now(),
  ) {
    super();
  }

  get size(): number {
    return this.lights.size;
  }

  has(serial: string): boolean {
    return this.lights.has(serial);
  }

  /**
   * The live record, without a copy: for reading at once (a hot path), never for keeping. Use get() for a
   * snapshot that stays as it was.
   */
  peek(serial: string): LightRecord | undefined {
    return this.lights.get(serial);
  }

  get(serial: string): LightRecord | undefined {
    const r = this.lights.get(serial);
    return r ? snapshot(r) : undefined;
  }

  /**
   * Every known light's live record, by serial, without copies: for building views at once (List Lights on a
   * hot path), never for keeping. all() gives snapshots.
   */
  peekAll(): readonly LightRecord[] {
    if (this.sorted === undefined) this.sorted = [...this.lights.values()].sort((a, b) => (a.serial < b.serial ? -1 : 1));
    return this.sorted;
  }

  /** Every known light, in a stable order (by serial). */
  all(): LightRecord[] {
    return [...this.lights.values()].sort((a, b) => (a.serial < b.serial ? -1 : 1)).map(snapshot);
  }

  /**
   * The light said where it is (StateService): adds it, follows an address change. It is not an answer to a read:
   * a light that answers discovery but not reads still goes offline (misses count reads only), and one that is
   * offline comes back online only when a read or write is answered again.
   */
  seen(serial: string, address: string, port: number): void {
    const now = this.clock();
    const existing = this.lights.get(serial);
    if (existing === undefined) {
      const record: MutableRecord = { serial, address, port, firstSeenAt: now, lastSeenAt: now, online: true, misses: 0, revision: 0, facts: NO_FACTS };
      this.lights.set(serial, record);
      this.sorted = undefined;
      this.emit('added', snapshot(record));
      return;
    }
    existing.lastSeenAt = now;
    existing.revision++;
    if (existing.address !== address || existing.port !== port) {
      existing.address = address;
      existing.port = port;
      this.emit('changed', snapshot(existing), ['address']);
    }
  }

  /** A packet came from this light's address: it was seen now. Not an answer to a read (see answered). */
  heard(serial: string, address: string): void {
    const r = this.lights.get(serial);
    if (r === undefined || r.address !== address) return;
    r.lastSeenAt = this.clock();
    r.revision++;
  }

  /** A light answered a read or a write: no misses, online (again). */
  answered(serial: string): void {
    const r = this.lights.get(serial);
    if (r === undefined) return;
    r.lastSeenAt = this.clock();
    r.misses = 0;
    r.revision++;
    if (!r.online) {
      r.online = true;
      this.emit('online', snapshot(r));
    }
  }

  /** A read (or write) went unanswered. After offlineAfterMisses in a row the light is offline. */
  missed(serial: string): void {
    const r = this.lights.get(serial);
    if (r === undefined) return;
    r.misses++;
    r.revision++;
    if (r.online && r.misses >= this.offlineAfterMisses) {
      r.online = false;
      this.emit('offline', snapshot(r));
    }
  }

  /**
   * A point in the order of reads and writes: take one before sending a read and pass it to update(), so a reply
   * to a read sent before a write cannot undo what the write set.
   */
  mark(): number {
    return ++this.marks;
  }

  /**
   * Records facts just read; emits `changed` naming the facts whose values differ. `readMark` (from mark(), taken
   * before the read was sent) lets a fact that a later write set win over the read. A fact set by a write whose
   * transition still runs is not replaced by a read either: the light shows a mid-fade sample, the service
   * reports where it is going (the target), and the first read after the transition has ended is taken again.
   */
  update(serial: string, facts: FactValues, readMark?: number): void {
    this.record(serial, facts, readMark, false);
  }

  private record(serial: string, facts: FactValues, readMark: number | undefined, written: boolean): void {
    const r = this.lights.get(serial);
    if (r === undefined) return;
    const now = this.clock();
    const pins = this.pins.get(serial);
    let changed: string[] | undefined;
    let next: Record<string, Fact<unknown>> | undefined;
    r.revision++;
    for (const key in facts) {
      const value = facts[key as keyof LightFacts];
      if (value === undefined) continue;
      const pin = written ? undefined : pins?.get(key);
      if (pin !== undefined) {
        if ((readMark !== undefined && readMark < pin.mark) || now < pin.untilMs) continue;
        pins!.delete(key);
      }
      const before = r.facts[key as keyof LightFacts];
      const same = (SAME_FACT[key as keyof LightFacts] ?? sameValue) as (a: unknown, b: unknown) => boolean;
      if (!before || !same(before.value, value)) (changed ??= []).push(key);
      (next ??= { ...r.facts })[key] = fact(value, now);
    }
    if (next !== undefined) r.facts = Object.freeze(next) as LightFacts;
    // Every background read lands here: the snapshot is only built for someone listening.
    if (changed !== undefined && this.listenerCount('changed') > 0) this.emit('changed', snapshot(r), changed);
  }

  /**
   * Records what a write makes the light show (the end of its transitions), at once: `settleMs` gives, per fact,
   * how long its transition runs from now (0 or missing = already there). Until then reads do not replace it.
   */
  wrote(serial: string, facts: FactValues, settleMs: Partial<Record<WrittenFact, number>> = {}): void {
    if (!this.lights.has(serial)) return;
    const mark = this.mark();
    const now = this.clock();
    let pins = this.pins.get(serial);
    for (const key in facts) {
      if (facts[key as keyof LightFacts] === undefined) continue;
      if (pins === undefined) this.pins.set(serial, (pins = new Map()));
      pins.set(key, { mark, untilMs: now + Math.max(0, settleMs[key as WrittenFact] ?? 0) });
    }
    this.record(serial, facts, undefined, true);
  }

  /** When the transition of a written fact ends (registry clock), or undefined when none is running. */
  settlesAt(serial: string, fact: WrittenFact): number | undefined {
    const pin = this.pins.get(serial)?.get(fact);
    return pin !== undefined && this.clock() < pin.untilMs ? pin.untilMs : undefined;
  }

  remove(serial: string): boolean {
    this.sorted = undefined;
    this.pins.delete(serial);
    return this.lights.delete(serial);
  }

  /**
   * The label of a group: the one from the member with the newest updated_at wins
   * (https://lan.developer.lifx.com/docs/groups-and-locations).
   */
  groupLabel(id: string): string | undefined {
    return this.newestLabel('group', id);
  }

  locationLabel(id: string): string | undefined {
    return this.newestLabel('location', id);
  }

  /** Every group (or location) id with its resolved label, in one pass over the lights. */
  labels(kind: 'group' | 'location'): Map<string, string> {
    const best = new Map<string, GroupMembership>();
    for (const r of this.lights.values()) {
      const m = r.facts[kind]?.value;
      if (!m) continue;
      const seen = best.get(m.id);
      if (seen === undefined || m.updatedAtNs > seen.updatedAtNs) best.set(m.id, m);
    }
    const out = new Map<string, string>();
    for (const [id, m] of best) out.set(id, m.label);
    return out;
  }

  private newestLabel(kind: 'group' | 'location', id: string): string | undefined {
    let best: GroupMembership | undefined;
    for (const r of this.lights.values()) {
      const m = r.facts[kind]?.value;
      if (m && m.id === id && (best === undefined || m.updatedAtNs > best.updatedAtNs)) best = m;
    }
    return best?.label;
  }
}

function snapshot(r: MutableRecord): LightRecord {
  return Object.freeze({ ...r });
}

// Renaming, as the device protocol asks (https://lan.developer.lifx.com/docs/changing-a-device): a light's label
// (SetLabel), the group or location lights belong to (SetGroup, SetLocation), a group or location renamed, and the
// correction of members found with an out-of-date name. A group's or location's label is the one carried with the
// newest updated_at (the registry resolves it so); a change sets updated_at to now and goes to every online member; a
// new group or location gets a fresh random 16-byte id; a member found carrying an older label is set to the newest.
// Every Set asks for its State reply as well as the ack (res_required, as the page recommends). What a light
// acknowledged is in the registry (and so in every view and selector) before its result is answered.

import { nodeCrypto } from '../builtins.js';
import type { LightClient } from '../discovery/client.js';
import type { GroupMembership, LightRecord } from '../discovery/registry.js';
import { LightwireError } from '../errors.js';
import type { Executor, PlanFor } from './executor.js';
import type { Checked } from './requests.js';
import type { LightResult, LightView, PlannedMessage, ResolvedLight } from './types.js';

/** What a group or location is to a light: both carry an id, a label and that label's updated_at. */
export type Grouping = 'group' | 'location';
const GROUPINGS: readonly Grouping[] = ['group', 'location'];

/** What renaming needs of the service. */
export interface NamingContext {
  readonly client: LightClient;
  readonly executor: Executor;
  readonly deadlineMs: number;
  /** The lights a selector names. */
  resolve(selector: string): ResolvedLight[];
  /** Every device read: lights, and LIFX Switches, which belong to a group and a location too. */
  views(): LightView[];
  light(serial: string): LightView | undefined;
  /** Background trouble (a correction that failed for a reason other than the light's silence). */
  error(err: Error): void;
  /** The clock updated_at is taken from, epoch ms (tests). */
  now?(): number;
}

/** The message that makes a light a member of `membership` (its id, label and updated_at, as the light stores them). */
function membershipMessage(kind: Grouping, m: GroupMembership): PlannedMessage {
  return kind === 'group'
    ? { name: 'SetGroup', payload: { group: m.id, label: m.label, updatedAtNs: m.updatedAtNs } }
    : { name: 'SetLocation', payload: { location: m.id, label: m.label, updatedAtNs: m.updatedAtNs } };
}

const onePlan =
  (message: (light: LightView) => PlannedMessage): PlanFor =>
  (light) => ({ steps: [[message(light)]] });

const sameName = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

export class Naming {
  /** Groups and locations (`kind:id`) being renamed now: their members are not corrected meanwhile. */
  private readonly renaming = new Map<string, number>();
  /** Members (`kind:serial`) being corrected now. */
  private readonly correcting = new Set<string>();

  constructor(private readonly context: NamingContext) {}

  /** Set Label: one light (SELECTOR_NOT_ONE_LIGHT when the selector names more); the result carries the new label. */
  async setLabel(selector: string, request: Checked<'setLabel'>): Promise<LightResult[]> {
    const targets = this.context.resolve(selector);
    if (targets.length > 1) throw new LightwireError('SELECTOR_NOT_ONE_LIGHT', { selector, count: targets.length });
    const results = await this.send(targets, onePlan(() => ({ name: 'SetLabel', payload: { label: request.label } })));
    return results.map((r) => (r.status === 'ok' ? { ...r, label: request.label } : r));
  }

  /**
   * Moves the lights a selector names to the group (or location) of that name: the one that has it keeps its id and
   * its label (the name as its members carry it, with its updated_at, so no member is renamed); when none has it, a
   * new one with a fresh random id, the name as given and updated_at now.
   */
  async moveTo(kind: Grouping, selector: string, name: string): Promise<LightResult[]> {
    const targets = this.context.resolve(selector);
    const id = this.idNamed(kind, name);
    const membership = (id !== undefined ? this.newest(kind, id) : undefined) ?? { id: nodeCrypto().randomBytes(16).toString('hex'), label: name, updatedAtNs: this.nowNs() };
    return this.send(targets, onePlan(() => membershipMessage(kind, membership)));
  }

  /**
   * Renames every group (or location) named `from` to `to`: every member that is online gets the new label with one
   * updated_at, later than any the group carried; a member that is offline answers `offline` and is corrected when
   * it comes back (watch). LIGHTS_NOT_FOUND when no group has the name.
   */
  async rename(kind: Grouping, request: Checked<'renameGroup'> | Checked<'renameLocation'>): Promise<LightResult[]> {
    const ids = this.idsNamed(kind, request.from);
    if (ids.size === 0) throw new LightwireError('LIGHTS_NOT_FOUND', { selector: `${kind}:${request.from}` });
    let updatedAtNs = this.nowNs();
    // Readers take the newest label: one a skewed clock dated later than now must not win over this rename.
    for (const id of ids) {
      const newest = this.newest(kind, id);
      if (newest !== undefined && newest.updatedAtNs >= updatedAtNs) updatedAtNs = newest.updatedAtNs + 1n;
    }
    const members = this.context.views().filter((v) => v[kind] !== null && ids.has(v[kind].id));
    const keys = [...ids].map((id) => `${kind}:${id}`);
    for (const key of keys) this.renaming.set(key, (this.renaming.get(key) ?? 0) + 1);
    try {
      return await this.send(
        members.map((light) => ({ light, zones: null })),
        onePlan((light) => membershipMessage(kind, { id: light[kind]!.id, label: request.to, updatedAtNs })),
      );
    } finally {
      for (const key of keys) {
        const left = (this.renaming.get(key) ?? 1) - 1;
        if (left > 0) this.renaming.set(key, left);
        else this.renaming.delete(key);
      }
      // A member that did not answer in time but is online is tried again as a correction.
      for (const id of ids) this.correct(kind, id);
    }
  }

  /**
   * Corrects members found with an out-of-date name: whenever a light's group or location is read anew (a changed
   * fact), and when a light comes back online (its group and location read again first: it may have been renamed
   * meanwhile, as it may have missed a rename). Returns the function that stops watching.
   */
  watch(): () => void {
    const client = this.context.client;
    const changed = (record: LightRecord, fields: readonly string[]): void => {
      for (const kind of GROUPINGS) {
        const id = fields.includes(kind) ? record.facts[kind]?.value.id : undefined;
        if (id !== undefined) this.correct(kind, id);
      }
    };
    const online = (record: LightRecord): void => {
      client.refreshInfo(record.serial).then(
        () => {
          for (const kind of GROUPINGS) {
            const id = client.registry.peek(record.serial)?.facts[kind]?.value.id;
            if (id !== undefined) this.correct(kind, id);
          }
        },
        (err: unknown) => this.reportUnlessCoded(err),
      );
    };
    // A light whose first read is over: its group may have been read before its state (a light is corrected once read).
    const described = (record: LightRecord): void => changed(record, GROUPINGS);
    client.on('changed', changed);
    client.on('online', online);
    client.on('described', described);
    return () => {
      client.off('changed', changed);
      client.off('online', online);
      client.off('described', described);
    };
  }

  /** Sets every online member of a group (or location) that carries an older, other label to the newest one. */
  private correct(kind: Grouping, id: string): void {
    if (this.renaming.has(`${kind}:${id}`)) return;
    const newest = this.newest(kind, id);
    if (newest === undefined) return;
    for (const record of this.context.client.registry.peekAll()) {
      const m = record.facts[kind]?.value;
      if (!record.online || m === undefined || m.id !== id || m.label === newest.label || m.updatedAtNs >= newest.updatedAtNs) continue;
      const key = `${kind}:${record.serial}`;
      const light = this.context.light(record.serial);
      if (light === undefined || this.correcting.has(key)) continue;
      this.correcting.add(key);
      this.send([{ light, zones: null }], onePlan(() => membershipMessage(kind, newest)))
        .then(undefined, (err: unknown) => this.reportUnlessCoded(err))
        .finally(() => this.correcting.delete(key));
    }
  }

  /** Confirmed writes, one message per light, each asking for its State reply; the registry follows what was acknowledged. */
  private send(targets: readonly ResolvedLight[], planFor: PlanFor): Promise<LightResult[]> {
    return this.context.executor.run(targets, planFor, { fast: false, deadlineMs: this.context.deadlineMs, read: 'none', withReply: true });
  }

  /** The membership of a group (or location) id carried with the newest updated_at: its label is the group's name. */
  private newest(kind: Grouping, id: string): GroupMembership | undefined {
    let best: GroupMembership | undefined;
    for (const record of this.context.client.registry.peekAll()) {
      const m = record.facts[kind]?.value;
      if (m !== undefined && m.id === id && (best === undefined || m.updatedAtNs > best.updatedAtNs)) best = m;
    }
    return best;
  }

  /** The ids of the groups (or locations) of that name, compared as selectors compare names (any case). */
  private idsNamed(kind: Grouping, name: string): Set<string> {
    const ids = new Set<string>();
    for (const view of this.context.views()) {
      const ref = view[kind];
      if (ref !== null && sameName(ref.name, name)) ids.add(ref.id);
    }
    return ids;
  }

  /** The group (or location) of that name with the most members (the lowest id of equals), or undefined. */
  private idNamed(kind: Grouping, name: string): string | undefined {
    const counts = new Map<string, number>();
    for (const view of this.context.views()) {
      const ref = view[kind];
      if (ref !== null && sameName(ref.name, name)) counts.set(ref.id, (counts.get(ref.id) ?? 0) + 1);
    }
    return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0];
  }

  private nowNs(): bigint {
    return BigInt(Math.round(this.context.now?.() ?? Date.now())) * 1_000_000n;
  }

  private reportUnlessCoded(err: unknown): void {
    if (!(err instanceof LightwireError)) this.context.error(err as Error);
  }
}

// The service's book of lights: every light as a frozen LightView (cached per record revision), the resolved group
// and location names, and which lights are known. It follows the client's registry and tells the service's
// listeners in its terms: a light is `added` once something true was read of it (never on a discovery reply
// alone), `changed` with the fields that moved (every member of a renamed group too), `offline` and `online`.

import type { EventEmitter } from 'node:events';
import type { LightClient } from '../discovery/client.js';
import type { LightRecord } from '../discovery/registry.js';
import type { LightServiceEvents } from './service-types.js';
import type { LightView } from './types.js';
import { groupNames, lightView, type GroupNames } from './views.js';

type LightEvent = 'added' | 'changed' | 'offline' | 'online';

/** What the book needs of the service it works for. */
export interface BookOwner {
  /** Tells the service's listeners (a listener that throws is reported, never thrown back here). */
  announce<E extends LightEvent>(event: E, ...args: LightServiceEvents[E]): void;
  /** Whether anyone listens for `changed` (building views for nobody is skipped). */
  wantsChanges(): boolean;
  /** Background trouble from the client (a socket error). */
  error(err: Error): void;
  /** A light's first read is over (the service's `ready` counts them). */
  described(): void;
}

/** Something true is known of a light: its state (power, and colour for lights) was read at least once. */
export function isRead(record: LightRecord): boolean {
  return record.facts.power !== undefined;
}

/** A light's view and what it was built from (LightBook.viewOf): facts and names aside, a view shows only the record's own fields. */
interface CachedView {
  revision: number;
  facts: LightRecord['facts'];
  view: LightView;
}

/** Whether the record moved since its view was made only by being heard from (lastSeenAt): facts, online and address as they were. */
function heardOnly(cached: CachedView, record: LightRecord): boolean {
  return cached.facts === record.facts && cached.view.online === record.online && cached.view.address === record.address;
}

export class LightBook {
  /** LightView per serial with the record revision and facts it was built from: light(serial) is a map lookup. */
  private readonly viewCache = new Map<string, CachedView>();
  private namesCache: GroupNames | undefined;
  /** Each light's group and location id as last seen, by serial, to tell a light that moves group. */
  private readonly memberships = { group: new Map<string, string>(), location: new Map<string, string>() };
  /** Lights whose first read is over (announced with `added`). */
  private readonly announced = new Set<string>();
  /** Lights whose first read is over but told nothing (no answer): announced once a later read succeeds. */
  private readonly unread = new Set<string>();
  private readonly detach: (() => void)[] = [];
  /** Announced lights whose view is out of date and that nobody was told of: rebuilt once the loop is idle (rebuildStale). */
  private readonly stale = new Set<string>();
  private staleRebuild: NodeJS.Immediate | undefined;

  constructor(
    private readonly client: LightClient,
    private readonly owner: BookOwner,
  ) {
    this.listen();
  }

  /** How many lights are known (announced). */
  get known(): number {
    return this.announced.size;
  }

  /** Lights a client already knew (a client passed in, or a restart) count as known. */
  adoptKnown(): void {
    for (const record of this.client.registry.peekAll()) {
      if (record.facts.power !== undefined || record.facts.color !== undefined) this.announced.add(record.serial);
    }
  }

  /** Lights found whose first read is not over yet. */
  pendingFirstReads(): number {
    let pending = 0;
    for (const record of this.client.registry.peekAll()) {
      if (!this.announced.has(record.serial) && !this.unread.has(record.serial)) pending++;
    }
    return pending;
  }

  /** Stops following the client (for a client that lives on after the service). */
  close(): void {
    for (const off of this.detach.splice(0)) off();
    if (this.staleRebuild !== undefined) clearImmediate(this.staleRebuild);
    this.staleRebuild = undefined;
    this.stale.clear();
  }

  /** One light, O(1): from the cache while its record is unchanged; undefined when unknown or never read. */
  light(serial: string): LightView | undefined {
    const record = this.client.registry.peek(serial);
    return record && isRead(record) ? this.viewOf(record) : undefined;
  }

  /**
   * Every known light, in serial order: lights found whose state was never read are left out (views, List Lights
   * and selectors show only what was read, never made-up values).
   */
  views(): LightView[] {
    const out: LightView[] = [];
    for (const r of this.client.registry.peekAll()) if (isRead(r)) out.push(this.viewOf(r));
    return out;
  }

  /**
   * views() for planning a write: a light only heard from since its view was made (a discovery round moves every
   * light's lastSeenAt, and nothing else) keeps that view as it is, rather than a copy of it made for each light before
   * a fleet-wide write's first datagram. What a write reads of a view (state, capabilities, label) is the same.
   */
  viewsToWrite(): LightView[] {
    const out: LightView[] = [];
    for (const r of this.client.registry.peekAll()) {
      if (!isRead(r)) continue;
      const cached = this.viewCache.get(r.serial);
      out.push(cached !== undefined && heardOnly(cached, r) ? cached.view : this.viewOf(r));
    }
    return out;
  }

  viewOf(record: LightRecord): LightView {
    const cached = this.viewCache.get(record.serial);
    if (cached === undefined) {
      const view = lightView(record, this.names());
      this.viewCache.set(record.serial, { revision: record.revision, facts: record.facts, view });
      return view;
    }
    if (cached.revision === record.revision) return cached.view;
    // Heard from again and nothing else (every discovery round, every packet): the same view with the new lastSeenAt.
    cached.view = heardOnly(cached, record) ? Object.freeze({ ...cached.view, lastSeenAt: record.lastSeenAt }) : lightView(record, this.names());
    cached.revision = record.revision;
    cached.facts = record.facts;
    return cached.view;
  }

  /**
   * A light changed and nobody was told (no `changed` listener built its view): its view is rebuilt once the loop is
   * idle, after the call that changed it, so the next call's selectors find every view ready rather than building a
   * fleet's worth of them before its first datagram (a fast set of every light changes every light).
   */
  private markStale(serial: string): void {
    this.stale.add(serial);
    if (this.staleRebuild !== undefined) return;
    this.staleRebuild = setImmediate(() => this.rebuildStale());
    // Never what keeps a process alive.
    this.staleRebuild.unref();
  }

  private rebuildStale(): void {
    this.staleRebuild = undefined;
    const registry = this.client.registry;
    for (const serial of this.stale) {
      const record = registry.peek(serial);
      if (record !== undefined && isRead(record)) this.viewOf(record);
    }
    this.stale.clear();
  }

  private listen(): void {
    const on = <E extends 'described' | 'changed' | 'offline' | 'online' | 'error' | 'added'>(
      event: E,
      fn: (...args: never[]) => void,
    ): void => {
      (this.client as EventEmitter).on(event, fn as (...args: unknown[]) => void);
      this.detach.push(() => (this.client as EventEmitter).off(event, fn as (...args: unknown[]) => void));
    };
    on('described', (record: LightRecord) => {
      // A light is known (listed, announced) once something true was read of it, never on a discovery reply alone.
      if (!isRead(record)) this.unread.add(record.serial);
      else if (!this.announced.has(record.serial)) {
        this.announced.add(record.serial);
        this.owner.announce('added', this.viewOf(record));
      }
      this.owner.described();
    });
    on('changed', (record: LightRecord, fields: readonly string[]) => {
      // A group's name is the newest label among its members: a change to one light renames it for all.
      if ((fields.includes('group') || fields.includes('location')) && this.renamesGroups(record)) this.renameGroups(record.serial);
      // A light whose first read went unanswered is announced when a later read succeeds.
      if (this.unread.has(record.serial) && isRead(record)) {
        this.unread.delete(record.serial);
        this.announced.add(record.serial);
        this.owner.announce('added', this.viewOf(record));
        return;
      }
      if (!this.announced.has(record.serial)) return;
      if (this.owner.wantsChanges()) this.owner.announce('changed', this.viewOf(record), fields);
      else this.markStale(record.serial);
    });
    on('offline', (record: LightRecord) => {
      if (this.announced.has(record.serial)) this.owner.announce('offline', this.viewOf(record));
    });
    on('online', (record: LightRecord) => {
      if (this.announced.has(record.serial)) this.owner.announce('online', this.viewOf(record));
    });
    on('error', (err: Error) => this.owner.error(err));
  }

  /**
   * Whether a light's new group or location can change a resolved name: it left a group, or it carries a label other
   * than the one resolved. A fleet read for the first time (every member with the same label) resolves names once,
   * not once per light.
   */
  private renamesGroups(record: LightRecord): boolean {
    let renames = false;
    for (const kind of ['group', 'location'] as const) {
      const ids = this.memberships[kind];
      const membership = record.facts[kind]?.value;
      const before = ids.get(record.serial);
      if (membership === undefined) ids.delete(record.serial);
      else ids.set(record.serial, membership.id);
      if (before !== undefined && before !== membership?.id) renames = true;
      else if (membership !== undefined && this.namesCache !== undefined && this.namesCache[kind].get(membership.id) !== membership.label) renames = true;
    }
    return renames;
  }

  /**
   * Group or location names moved (one light brought a newer label): the names are resolved again, and every other
   * light whose group or location now shows another name is told as `changed`, as the light that brought it is.
   */
  private renameGroups(serial: string): void {
    const before = this.namesCache;
    this.namesCache = undefined;
    this.viewCache.clear();
    if (before === undefined || !this.owner.wantsChanges()) return;
    const after = this.names();
    for (const record of this.client.registry.peekAll()) {
      if (record.serial === serial || !this.announced.has(record.serial)) continue;
      const fields = (['group', 'location'] as const).filter((kind) => {
        const membership = record.facts[kind]?.value;
        return membership !== undefined && (before[kind].get(membership.id) ?? membership.label) !== (after[kind].get(membership.id) ?? membership.label);
      });
      if (fields.length > 0) this.owner.announce('changed', this.viewOf(record), fields);
    }
  }

  private names(): GroupNames {
    return (this.namesCache ??= groupNames(this.client.registry));
  }
}

// Confirmed writes to one light, in turn: each starts once the one before it on that light has settled, so it is
// planned from what that write left (our own acknowledged state, no read) and the light's pacing budget goes to
// what is still wanted. With latest wins (WriteOptions.latestWins), a write still waiting its turn is dropped for a
// newer one that sets every field it sets, as fast mode's queue does per message: a flood of Set States (a dragged
// slider, a Node-RED flow at 50 messages a second) keeps each light at most one write behind the newest, instead of
// working through a backlog the light can take only at the vendor's 20 messages a second
// (https://lan.developer.lifx.com/docs/communicating-with-device). The dropped write answers with the result of
// the one that replaced it, marked as such (the executor's `superseded`): the light ended with every field it asked
// for set, to newer values. Without latest wins every write runs, so `ok` means the light took it.

import type { StateChange } from './types.js';

/** A field of a light a write sets to an absolute value, whatever the light showed before. */
export type StateField = 'power' | 'hue' | 'saturation' | 'brightness' | 'kelvin' | 'infrared';

/**
 * The whole-light fields a Set State change sets. Its transition is not one of them: a write replaced before it
 * went out never runs its transition, and the light ends as the newer write leaves it either way.
 */
export function fieldsSet(change: StateChange): ReadonlySet<StateField> {
  const fields = new Set<StateField>();
  if (change.power !== undefined) fields.add('power');
  const color = change.color;
  if (color !== undefined) {
    if (color.hue !== undefined) fields.add('hue');
    if (color.saturation !== undefined) fields.add('saturation');
    if (color.brightness !== undefined) fields.add('brightness');
    if (color.kelvin !== undefined) fields.add('kelvin');
  }
  if (change.brightness !== undefined) fields.add('brightness');
  if (change.infrared !== undefined) fields.add('infrared');
  return fields;
}

/** Whether a write setting `newer` leaves nothing of a write setting `older` when it runs after it. */
export function covers(newer: ReadonlySet<StateField>, older: ReadonlySet<StateField>): boolean {
  if (older.size === 0) return false;
  for (const field of older) if (!newer.has(field)) return false;
  return true;
}

interface Turn<R> {
  /** Undefined: this write is never dropped and never drops another (not latest-wins, effects, renames, zones, parts). */
  readonly fields: ReadonlySet<StateField> | undefined;
  readonly start: (waited: boolean) => Promise<R>;
  /** This write's caller, then those of the waiting writes it replaced. */
  readonly settle: Array<{ readonly resolve: (r: R) => void; readonly reject: (err: unknown) => void }>;
}

interface Lane<R> {
  running: boolean;
  readonly waiting: Turn<R>[];
}

/** Per light (by serial): the confirmed write running, and those waiting their turn. */
export class LightLanes<R> {
  private readonly lanes = new Map<string, Lane<R>>();

  /** `replaced`: what a replaced write answers, from the result of the write that replaced it. */
  constructor(private readonly replaced: (result: R) => R) {}

  /**
   * Runs `start` once the light's earlier writes have settled. `fields`: what it sets (fieldsSet), so a newer write
   * setting all of them may take its place while it waits; undefined for a write that must run as asked. `start` is
   * told whether it waited for another write (what it knew of the light when asked may be out of date then).
   */
  inTurn(serial: string, fields: ReadonlySet<StateField> | undefined, start: (waited: boolean) => Promise<R>): Promise<R> {
    let lane = this.lanes.get(serial);
    if (lane === undefined) {
      lane = { running: false, waiting: [] };
      this.lanes.set(serial, lane);
    }
    return new Promise<R>((resolve, reject) => {
      const turn: Turn<R> = { fields, start, settle: [{ resolve, reject }] };
      const last = lane.waiting.at(-1);
      // Only the newest waiting write can be replaced: one behind it that the new one does not cover would
      // otherwise run after writes asked later than it.
      if (last !== undefined && fields !== undefined && last.fields !== undefined && covers(fields, last.fields)) {
        lane.waiting.pop();
        turn.settle.push(...last.settle);
      }
      lane.waiting.push(turn);
      if (!lane.running) this.next(serial, lane, false);
    });
  }

  /** How many writes wait behind a running one, over every light (for tests and the doctor). */
  get waitingCount(): number {
    let count = 0;
    for (const lane of this.lanes.values()) count += lane.waiting.length;
    return count;
  }

  private next(serial: string, lane: Lane<R>, waited: boolean): void {
    const turn = lane.waiting.shift();
    if (turn === undefined) {
      lane.running = false;
      this.lanes.delete(serial);
      return;
    }
    lane.running = true;
    let done: Promise<R>;
    try {
      done = turn.start(waited);
    } catch (err) {
      done = Promise.reject(err);
    }
    done.then(
      (r) => {
        turn.settle[0]!.resolve(r);
        for (let i = 1; i < turn.settle.length; i++) turn.settle[i]!.resolve(this.replaced(r));
        this.next(serial, lane, true);
      },
      (err: unknown) => {
        for (const s of turn.settle) s.reject(err);
        this.next(serial, lane, true);
      },
    );
  }
}

// What the bench processes tell each other over IPC (parent <-> fleet child, parent <-> client worker).

import type { Hsbk, PowerState } from '../../core/protocol/index.js';

/** ours: Lightwire's LightClient; llc: lifx-lan-client 2.1.2; nll: node-lifx-lan 0.5.0; nl: node-lifx 0.8.0. */
export type ClientName = 'ours' | 'llc' | 'nll' | 'nl';
/**
 * read-facts: equal work for the memory figures: every client reads, with its own API, what Lightwire reads of each
 * light (label, version, host firmware, group, location, Wi-Fi info, state).
 */
export type Task = 'discovery' | 'read-state' | 'read-facts' | 'baseline';

/** A virtual light as the fleet process reports it: the truth the replies are checked against. */
export interface ExpectedLight {
  readonly serial: string;
  readonly address: string;
  readonly label: string;
  readonly power: PowerState;
  readonly color: Hsbk;
  /** Equal work checks the version, group and location read against these (product and group differ between lights). */
  readonly productId: number;
  readonly group: string;
  readonly location: string;
}

export interface WorkerConfig {
  readonly client: ClientName;
  readonly task: Task;
  readonly expected: readonly ExpectedLight[];
  /** Give up on discovery (and on the reads, unless readCapMs says otherwise) after this long. */
  readonly capMs: number;
  /** Give up on the reads after this long (equal work has a cap of its own); unset: capMs. */
  readonly readCapMs?: number;
  /** Equal work: at most this many lights read at once, each read at most `factsAttempts` times (peers.ts's defaults). */
  readonly factsInFlight?: number;
  readonly factsAttempts?: number;
  /** After all lights are found: let the traffic discovery triggers die down before the next phase / the end. */
  readonly settleMs: number;
  /**
   * Also take the RSS once the client is this old (ms since it was created), holding what it found: a client that
   * finished early waits for it, one that ran into the cap is that old already. Unset: not taken.
   */
  readonly sameAgeMs?: number;
}

export interface WorkerResult {
  readonly client: ClientName;
  readonly task: Task;
  readonly n: number;
  readonly found: number;
  /** From creating the client to the N-th light found; null when not all were found within the cap. */
  readonly discoveryMs: number | null;
  /** Udp RcvbufErrors (network namespace) from start until all were found (or the cap). */
  readonly dropsUntilFound: number;
  /** Udp RcvbufErrors over the whole run: discovery, settle, reads. */
  readonly dropsWholeRun: number;
  /** Drops counted on the client's own socket over its lifetime (/proc/net/udp). */
  readonly dropsClientSocket: number;
  /**
   * read-state: from the first GetColor to the last reply, over the lights the client had discovered by then; null
   * when one of them did not answer within the cap.
   */
  readonly readMs: number | null;
  /** Udp RcvbufErrors during the reads. */
  readonly dropsDuringReads: number;
  /** Lights the client had not discovered when the reads began (not asked, counted as missing). */
  readonly undiscovered: number;
  readonly correct: number;
  /** A reply that arrived for light X but carried another light's label or colour (or serial). */
  readonly wrong: number;
  /** No reply (not discovered, timeout, error or the cap). */
  readonly missing: number;
  /** Equal work: lights read again (with the library's own calls) after a read that failed or came back wrong. */
  readonly retries: number;
  readonly wrongExamples: readonly string[];
  /** process.resourceUsage().maxRSS, KiB. */
  readonly maxRssKiB: number;
  /** RSS at the end of the run (after the reads and the settle, before stopping), KiB. */
  readonly endRssKiB: number;
  /** Where that RSS lived at that moment. */
  readonly endResident: ResidentParts;
  /** RSS when the client was WorkerConfig.sameAgeMs old (before the collections below), KiB; null when not asked. */
  readonly sameAgeRssKiB: number | null;
  /** V8 heap in use after two full collections at the end of the run, KiB. */
  readonly heapAfterGcKiB: number;
  /** Ours: from creating the client until every light it found was described (facts and state read); null otherwise. */
  readonly describedMs: number | null;
}

/** The anonymous part of a process's RSS at one moment, KiB (/proc/self/status and V8's heap space statistics). */
export interface ResidentParts {
  /** Resident pages of V8's heap spaces (new, old, code, ...): the JS objects and compiled code. */
  readonly v8HeapKiB: number;
  /**
   * Anonymous memory outside V8's heap spaces: what Node, libuv and V8's compilers and collectors allocate with malloc
   * (and keep, freed, in the allocator's arenas), and heap pages V8 keeps pooled for reuse.
   */
  readonly otherAnonKiB: number;
}

/**
 * What a set-state run asks of every light: power on and this colour (user units; hue and saturation only where the
 * product has colour); or, with power 'off', only that the light is off (bench/node-red.ts turns lights off between runs).
 */
export interface TargetState {
  readonly power?: PowerState;
  readonly hue: number;
  readonly saturation: number;
  readonly brightness: number;
  readonly kelvin: number;
}

export type FleetRequest =
  | { readonly type: 'clear' }
  | { readonly type: 'stats' }
  | { readonly type: 'stop' }
  // set-state bench: put every light in a known state at once (no transition) and clear the records.
  | { readonly type: 'reset'; readonly power: PowerState; readonly color: Hsbk }
  // set-state bench: from now on, note when each light first shows `target` (checked after every Set it receives).
  // `serials`: only these lights (default: every light).
  | { readonly type: 'watch'; readonly target: TargetState; readonly serials?: readonly string[] }
  // set-state bench: wait until every light shows the target or `graceMs` passed, then read every light back;
  // `doneAtEpochMs`: when the client reported done (how many lights showed the target by then).
  | { readonly type: 'watch-result'; readonly graceMs: number; readonly doneAtEpochMs: number | null };

export type FleetReply =
  | { readonly type: 'ready'; readonly lights: readonly ExpectedLight[] }
  | { readonly type: 'cleared' }
  | {
      readonly type: 'stats';
      readonly maxMessagesPerSecond: number;
      readonly errors: number;
      readonly sendErrors: number;
      /** Set messages (SetColor, SetLightPower, SetPower, ...) received by every light together since the records were cleared. */
      readonly setMessages: number;
      /** The same, by message name. */
      readonly setByName: Readonly<Record<string, number>>;
    }
  | { readonly type: 'reset-done' }
  | { readonly type: 'watching' }
  | {
      readonly type: 'watch-result';
      /** Lights whose state matches the target now (read back from every light). */
      readonly matched: number;
      /** performance.timeOrigin + performance.now() when the last light first showed the target; null if one never did. */
      readonly allShownAtEpochMs: number | null;
      /** Lights that showed the target by doneAtEpochMs (0 when it is null). */
      readonly shownWhenDone: number;
      /** Up to three lights that do not show the target, with what they show. */
      readonly examples: readonly string[];
    }
  | { readonly type: 'failed'; readonly reason: string };

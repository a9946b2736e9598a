// The shapes of the light service's API: what its writes take and answer, its events, and its diagnostics. The
// requests are the operation catalogue's (requests.ts derives them), in the service's names and user units.

import type { DiscoveryOptions } from '../discovery/options.js';
import type { Scene } from './scene-file.js';
import type { RequestOf, SetStateRequest, Vocabulary } from './requests.js';
import type { LightResult, LightView } from './types.js';

/** A device the service heard (it answered discovery), whether or not its state was read: for diagnostics. */
export interface HeardDevice {
  readonly serial: string;
  /** Where it answers: IPv4 address and UDP port. */
  readonly address: string;
  readonly port: number;
  /** Answering now (false after several missed reads). */
  readonly online: boolean;
  /** Its state was read: it is one of views(). A device heard but never read is left out of every other answer. */
  readonly read: boolean;
}

/** How the service looks for lights and what it heard: `lightwire discover`'s table, "answered discovery only". */
export interface ServiceDiagnostics {
  /** The discovery settings in force (broadcast addresses, port, static hosts, read deadline, ...). */
  readonly discovery: DiscoveryOptions;
  /** Every device heard, in serial order. */
  readonly devices: readonly HeardDevice[];
}

export interface WriteOptions {
  /** End-state messages only, no read, no reply awaited (fast mode, https://api.developer.lifx.com/docs/set-state). */
  readonly fast?: boolean;
  /**
   * Set State only, confirmed: while this write waits its turn on a light (behind that light's earlier confirmed
   * writes), a newer latest-wins write setting every field it sets may replace it; its result then carries that
   * one's status and `superseded: true`. A light's power and a strip's zones the service read or had acknowledged
   * within the last second are trusted rather than sent again with every colour or read before it (a light switched
   * off, or zones painted, behind its back during a stream are set again within about a second). For a stream of values where only the newest matters (a slider, a flow firing
   * faster than a light takes); off by default, so `ok` means the light took this write, and power is always sent.
   */
  readonly latestWins?: boolean;
}

export interface SetStatesOperation extends SetStateRequest {
  readonly selector: string;
}

export type SetStatesResult =
  | { readonly operation: SetStatesOperation; readonly results: LightResult[] }
  | { readonly operation: SetStatesOperation; readonly error: string; readonly code: string };

/** The requests of the service's operations, in its names and user units: derived from the catalogue. */
export type WaveformRequest = RequestOf<'pulse'>;
export type BreatheRequest = RequestOf<'breathe'>;
export type MoveRequest = RequestOf<'move'>;
export type MorphRequest = RequestOf<'morph'>;
export type FlameRequest = RequestOf<'flame'>;
export type SkyRequest = RequestOf<'clouds'>;
export type EffectsOffRequest = RequestOf<'effectsOff'>;
export type CleanRequest = RequestOf<'clean'>;
export type ToggleRequest = RequestOf<'toggle'>;
export type StateDeltaRequest = RequestOf<'stateDelta'>;
export type CycleRequest = RequestOf<'cycle'>;
/** Paint Pixels: `pixels` (rows of colours) or `color` (a rectangle x, y, width, height of one colour). */
export type PaintRequest = RequestOf<'paint'>;
/** Paint Theme: `theme` (a name of THEME_NAMES). */
export type ThemeRequest = RequestOf<'theme'>;

/** How a face hands the service unchecked input: in whose names, with what before each field name. */
export interface CheckOptions {
  /** `v1` (HTTP, Node-RED: `power_on`) or `library` (`powerOn`, the default). */
  readonly vocabulary?: Vocabulary;
  /** Put before each field name in errors (`payload.`). */
  readonly prefix?: string;
  /** Refuse keys the operation does not declare (a typo must not pass as "nothing to change"). */
  readonly strict?: boolean;
  /** Keys the caller reads itself (Node-RED's `effect` and `fast`). */
  readonly ignore?: readonly string[];
}

/** Events in the service's terms: every light as a LightView. */
export interface LightServiceEvents {
  /** A light's first read is over: it is known from now on. */
  added: [LightView];
  /** Facts changed (by a read, by our own write, or an address move); the second argument names them. */
  changed: [LightView, readonly string[]];
  offline: [LightView];
  online: [LightView];
  /**
   * The scene list changed: a capture, rename or delete here, or the scene file changed on disk (another process that
   * shares it; looked at every SCENE_FILE_CHECK_MS). With every scene, in list order.
   */
  scenes: [readonly Scene[]];
  /** Background trouble (a socket error); the service keeps running. */
  error: [Error];
}

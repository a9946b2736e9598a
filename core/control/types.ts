// Shared shapes of the light service (core/control): what selectors, colour strings, the planner, the
// executor and the faces agree on. All in user units: degrees, 0-1 fractions, seconds, kelvin.

import type { ButtonsFact } from '../discovery/buttons.js';
import type { RelayFact } from '../discovery/registry.js';
import type { Capabilities, FirmwareVersion, Hsbk, MessageName, Payload, PowerState, Product, SignalQuality } from '../protocol/index.js';

/** Some of hue (degrees), saturation, brightness (0-1) and kelvin: what a colour string sets. */
export interface PartialHsbk {
  readonly hue?: number;
  readonly saturation?: number;
  readonly brightness?: number;
  readonly kelvin?: number;
}

/** Zones of a multizone light, inclusive, 0 nearest the controller. */
export interface ZoneRange {
  readonly start: number;
  readonly end: number;
}

export interface GroupRef {
  /** 32 lowercase hex digits. */
  readonly id: string;
  readonly name: string;
}

/**
 * One light as the service sees it: a frozen view built from the client's registry. Anything not read
 * yet is null; `capabilities` falls back to an unknown product's (a plain colour light).
 */
export interface MatrixView {
  readonly tiles: readonly { readonly width: number; readonly height: number }[];
  readonly zoneCount: number;
}

export interface LightView {
  readonly serial: string;
  readonly label: string;
  /** Reachable now (the HTTP API's `connected`). */
  readonly online: boolean;
  readonly group: GroupRef | null;
  readonly location: GroupRef | null;
  readonly product: Product | null;
  readonly capabilities: Capabilities;
  readonly power: PowerState | null;
  readonly color: Hsbk | null;
  /** 0-1, lights with infrared only. */
  readonly infrared: number | null;
  /** Current colour of each zone, multizone lights only, when read. */
  readonly zones: readonly Hsbk[] | null;
  /**
   * A matrix light's tiles as the device reports them (StateDeviceChain: each tile's width and height in zones) and
   * their zones in all; matrix lights only, when read.
   */
  readonly matrix: MatrixView | null;
  /** Current colour of each pixel of each tile (row by row from the top left), matrix lights only, when read (Get64). */
  readonly pixels: readonly (readonly Hsbk[])[] | null;
  /** Epoch ms of the last packet from the light. */
  readonly lastSeenAt: number;
  /** Where the light answers (IPv4). */
  readonly address: string;
  /**
   * The firmware effect running: OFF, MOVE, MORPH, FLAME, SKY (clouds, sunrise and sunset are all SKY) or COLOR_SWEEP;
   * an effect our tables do not name is shown by its number (`"7"`), never as OFF. OFF too while not read.
   */
  readonly effect: string;
  /** Relays of a LIFX Switch as last read or written, by index; null for lights. */
  readonly relays: readonly RelayState[] | null;
  readonly firmware: FirmwareVersion | null;
  /** Wi-Fi signal as last read: RSSI in dBm and its band. */
  readonly wifi: { readonly rssi: number; readonly quality: SignalQuality } | null;
  /**
   * The ambient light sensor's last reading in lux, lights that have one; null otherwise or until read. Raw: not
   * calibrated, and with the light on it mostly measures the light's own output (it reads best with the light off).
   */
  readonly ambientLux: number | null;
  /** Button configuration of a device with buttons (gestures, target types and targets decoded); null otherwise. */
  readonly buttons: ButtonsFact | null;
}

// ---- selectors (https://api.developer.lifx.com/docs/selectors) ----

export type SelectorKind = 'all' | 'id' | 'label' | 'group' | 'group_id' | 'location' | 'location_id' | 'scene_id';

export interface Selector {
  readonly kind: SelectorKind;
  /** The value after `kind:`; empty for `all`. Percent-decoded. `id` values are lowercase. */
  readonly value: string;
  /** `:random` suffix: one random light of the set. */
  readonly random: boolean;
  /** `|a-b` zone ranges, or null when none were given. */
  readonly zones: readonly ZoneRange[] | null;
  /** `|name`: one part of the light (parts.ts), or absent. */
  readonly part?: string;
  /** This selector as written (decoded). */
  readonly text: string;
}

export interface ResolvedLight {
  readonly light: LightView;
  /** Zones to act on (multizone lights only); null = the whole light. */
  readonly zones: readonly ZoneRange[] | null;
  /** The part a selector named (`|uplight`), zones null then; absent = the light (or its zones). */
  readonly part?: PartDef;
}

/** One part of a light (parts.ts): its name, and which of the light's zones (or pixels) it is on a light of `count`. */
export interface PartDef {
  readonly name: string;
  readonly zonesOf: (count: number) => readonly ZoneRange[];
}

/** Finds the selectors stored in a scene's states, for `scene_id:` (undefined = no such scene). */
export type SceneSelectors = (sceneId: string) => readonly string[] | undefined;

// ---- the planner's input and output ----

/** A validated Set State request, in user units. */
export interface StateChange {
  readonly power?: PowerState;
  /** From the colour string; an explicit `brightness` overrides its brightness. */
  readonly color?: PartialHsbk;
  readonly brightness?: number;
  /** 0-1, infrared lights only. */
  readonly infrared?: number;
  readonly durationS: number;
}

/** One message of a plan: a name from the tables and its wire payload. */
export type PlannedMessage = { [N in MessageName]: { readonly name: N; readonly payload: Payload<N> } }[MessageName];

/**
 * Ordered steps for one light. The messages of a step go out together; without fast mode the executor
 * waits for every ack of a step before sending the next (colour while off, then power).
 */
export interface Plan {
  readonly steps: readonly (readonly PlannedMessage[])[];
}

export type ResultStatus = 'ok' | 'timed_out' | 'offline';

/** The outcome for one light, as every face reports it (the cloud's per-light `status`: ok, timed_out, offline). */
export interface LightResult {
  readonly id: string;
  readonly label: string;
  readonly status: ResultStatus;
  /** Toggle results carry the new power. */
  readonly power?: PowerState;
  /**
   * The write waited its turn and was replaced by a newer one that set all it asked (WriteOptions.latestWins):
   * `status` is that one's.
   */
  readonly superseded?: true;
}

/** One relay of a LIFX Switch: 0-based index, and whether it is on. */
export type RelayState = RelayFact;


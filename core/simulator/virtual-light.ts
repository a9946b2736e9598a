// One virtual device on the network: its model, faults, records and the socket it answers from.
// The fleet hands it decoded packets (from its own socket or the shared discovery listener); it filters by
// target, records, acknowledges, answers and applies the faults
// (https://lan.developer.lifx.com/docs/communicating-with-device).

import type { Socket } from 'node:dgram';
import { LightwireError } from '../errors.js';
import { encode, encodingLength, type Packet } from '../protocol/codec.js';
import { BROADCAST_TARGET, HEADER_BYTES } from '../protocol/header.js';
import type { Product } from '../protocol/products.js';
import { MALFORMED_KINDS, malformed, type Faults } from './faults.js';
import { parseFaults, parseStatePatch, type LightSpec } from './fleet-file.js';
import { respond } from './handlers/index.js';
import { fieldSlot, type Reply } from './handlers/types.js';
import { DeviceModel, type LightStateView } from './model.js';
import { ReceivedRecords, type ReceivedPacket } from './records.js';

/** What the fleet gives each light: its clock, randomness and timers it can clear on stop. */
export interface LightEnvironment {
  readonly now: () => number;
  readonly random: () => number;
  readonly recordLimit: number;
  readonly setTimer: (fn: () => void, ms: number) => void;
  readonly onError: (err: unknown) => void;
}

export interface LightStats {
  /** Datagrams arriving at the light dropped by `lossInProbability` (the light never saw them). */
  lost: number;
  /** Reply datagrams dropped by `lossOutProbability` (the light had acted on the message). */
  lostReplies: number;
  /** Reply datagrams held back by `reorderProbability`. */
  reordered: number;
  /** Datagrams ignored because the light was offline. */
  ignoredOffline: number;
  /** Datagrams on this light's own socket that did not decode. */
  undecodable: number;
  /** Messages it acted on whose payload was shorter than the message's size (read with the missing bytes as zeros). */
  shortPayloads: number;
  /** Datagrams sent (acks, states, duplicates and malformed ones; not the lost replies). */
  sent: number;
  sendErrors: number;
}

function emptyStats(): LightStats {
  return { lost: 0, lostReplies: 0, reordered: 0, ignoredOffline: 0, undecodable: 0, shortPayloads: 0, sent: 0, sendErrors: 0 };
}

export interface LightSummary {
  readonly serial: string;
  readonly label: string;
  readonly vendorId: number;
  readonly productId: number;
  readonly productName: string;
  readonly firmware: { readonly major: number; readonly minor: number };
  readonly address: string;
  readonly port: number;
  readonly faults: Faults;
  readonly state: LightStateView;
  readonly received: { readonly total: number; readonly maxMessagesPerSecond: number; readonly byName: Record<string, number> };
  readonly stats: Readonly<LightStats>;
}

export class VirtualLight {
  readonly serial: string;
  readonly product: Product;
  private boundAddress: string;
  private boundPort = 0;
  private socket: Socket | null = null;
  private currentFaults: Faults;
  private readonly model: DeviceModel;
  private readonly records: ReceivedRecords;
  private malformedCounter = 0;
  readonly stats: LightStats = emptyStats();

  constructor(
    spec: LightSpec,
    address: string,
    private readonly env: LightEnvironment,
  ) {
    this.serial = spec.serial;
    this.product = spec.product;
    this.boundAddress = address;
    this.currentFaults = spec.faults;
    this.model = new DeviceModel(spec, env.now());
    this.records = new ReceivedRecords(env.recordLimit);
  }

  /** Where the light answers from (Fleet.moveLight changes it); the port is known once the fleet has started. */
  get address(): string {
    return this.boundAddress;
  }

  get port(): number {
    return this.boundPort;
  }

  /** The state now, in user units (transitions evaluated at the fleet clock). */
  get state(): LightStateView {
    return this.model.view(this.env.now());
  }

  get faults(): Faults {
    return this.currentFaults;
  }

  /** Changes some faults (validated like a fleet file's `faults`: FLEET_INVALID naming the bad key). */
  setFaults(patch: unknown): Faults {
    return this.update({ faults: patch }).faults;
  }

  /** Changes the state at once, without a transition. CONTROL_REQUEST_INVALID for what the product lacks. */
  setState(patch: unknown): LightStateView {
    return this.update({ state: patch }).state;
  }

  /**
   * Applies `{faults?, state?}` (the control endpoint's PATCH body). Both parts are validated before either is
   * applied, so a rejected change changes nothing.
   */
  update(change: unknown): { faults: Faults; state: LightStateView } {
    if (typeof change !== 'object' || change === null || Array.isArray(change)) {
      throw new LightwireError('CONTROL_REQUEST_INVALID', { reason: 'a change must be an object {faults?, state?}' });
    }
    const { faults, state, ...rest } = change as Record<string, unknown>;
    const unknownKey = Object.keys(rest)[0];
    if (unknownKey !== undefined) {
      throw new LightwireError('CONTROL_REQUEST_INVALID', { reason: `unknown key ${unknownKey} (allowed: faults, state)` });
    }
    const faultPatch = faults === undefined ? {} : parseFaults(faults, 'faults');
    const statePatch = state === undefined ? undefined : parseStatePatch(state, 'state');
    if (statePatch !== undefined) {
      const refused = this.model.unsupportedKeys(statePatch);
      if (refused.length > 0) {
        throw new LightwireError('CONTROL_REQUEST_INVALID', {
          reason: `${this.product.name} (${this.serial}) has no ${refused.map((k) => `state.${k}`).join(', ')}`,
        });
      }
    }
    const nowMs = this.env.now();
    this.currentFaults = Object.freeze({ ...this.currentFaults, ...faultPatch });
    if (statePatch !== undefined) this.model.applyPatch(statePatch, nowMs, BigInt(Math.round(nowMs)) * 1_000_000n);
    return { faults: this.currentFaults, state: this.model.view(nowMs) };
  }

  // ---- records ----

  /** Packets received (oldest first), optionally only one message name. */
  received(name?: Parameters<ReceivedRecords['packets']>[0]): ReceivedPacket[] {
    return this.records.packets(name);
  }

  /** How many messages of a name (or `#<type>` for unknown types) were received. */
  receivedCount(name: Parameters<ReceivedRecords['count']>[0]): number {
    return this.records.count(name);
  }

  get receivedTotal(): number {
    return this.records.total;
  }

  receivedByName(): Record<string, number> {
    return this.records.countsByName();
  }

  /** Most messages received in any sliding one-second window (see ReceivedRecords). */
  maxMessagesPerSecond(): number {
    return this.records.maxMessagesPerSecond();
  }

  /** Messages received during the last second. */
  messagesInLastSecond(): number {
    return this.records.messagesInLastSecond(this.env.now());
  }

  clearRecords(): void {
    this.records.clear();
    Object.assign(this.stats, emptyStats());
  }

  summary(): LightSummary {
    return {
      serial: this.serial,
      label: this.model.label,
      vendorId: this.product.vendorId,
      productId: this.product.productId,
      productName: this.product.name,
      firmware: this.model.firmware,
      address: this.address,
      port: this.boundPort,
      faults: this.currentFaults,
      state: this.state,
      received: {
        total: this.records.total,
        maxMessagesPerSecond: this.records.maxMessagesPerSecond(),
        byName: this.records.countsByName(),
      },
      stats: { ...this.stats },
    };
  }

  // ---- network (used by the fleet) ----

  /** @internal The socket the light answers from, its port and (after a move) its new address. */
  attach(socket: Socket | null, port: number, address: string = this.boundAddress): void {
    this.socket = socket;
    this.boundPort = port;
    this.boundAddress = address;
  }

  /**
   * @internal The fleet calls this for every decoded datagram that may concern this light, with the datagram it
   * decoded (what a device stores verbatim, such as a label, comes from its bytes).
   */
  receive(packet: Packet, from: { readonly address: string; readonly port: number }, datagram: Uint8Array): void {
    const faults = this.currentFaults;
    if (faults.offline) {
      this.stats.ignoredOffline++;
      return;
    }
    const { header } = packet;
    // All-zero target = every device; another serial is not for us.
    if (header.target !== BROADCAST_TARGET && header.target !== this.serial) return;
    if (faults.lossInProbability > 0 && this.env.random() < faults.lossInProbability) {
      this.stats.lost++;
      return;
    }
    if (packet.name !== null && datagram.length < encodingLength(packet.name)) this.stats.shortPayloads++;
    const nowMs = this.env.now();
    this.records.add({ name: packet.name, type: header.type, header, payload: packet.payload, atMs: nowMs, from });
    if (faults.unresponsive && packet.name !== 'GetService') return;

    const replies: Reply[] = [];
    if (header.ackRequired) replies.push({ name: 'Acknowledgement', payload: {} });
    const payloadBytes = datagram.subarray(HEADER_BYTES);
    replies.push(...respond({ model: this.model, nowMs, resRequired: header.resRequired, port: this.boundPort, payloadBytes }, packet));
    if (replies.length === 0) return;
    this.dispatch(this.datagrams(replies, header.source, header.sequence), from);
  }

  /** @internal Counts a datagram on this light's socket that did not decode (too short, wrong protocol or size). */
  noteUndecodable(): void {
    this.stats.undecodable++;
  }

  private datagrams(replies: readonly Reply[], source: number, sequence: number): Buffer[] {
    const faults = this.currentFaults;
    const out: Buffer[] = [];
    for (const r of replies) {
      // Replies name the device and are never tagged.
      const real = encode({ name: r.name, header: { source, sequence, target: this.serial, tagged: false }, payload: r.payload as never });
      for (const v of r.verbatim ?? []) real.set(v.bytes, HEADER_BYTES + fieldSlot(r.name, v.field).offset);
      if (faults.malformedReplies !== 'off') {
        out.push(malformed(real, MALFORMED_KINDS[this.malformedCounter++ % MALFORMED_KINDS.length]!));
        if (faults.malformedReplies === 'instead') continue;
      }
      out.push(real);
    }
    if (!faults.duplicateReplies) return out;
    return out.flatMap((d) => [d, d]);
  }

  /**
   * Sends the replies through the per-datagram faults: each may be lost (`lossOutProbability`) or held back
   * (`reorderProbability`, `reorderDelayMs` after the others); the rest leave together after `latencyMs`.
   * A random number is drawn only for a fault that is on, so a fleet's injected randomness sees one draw per
   * incoming datagram when only `lossInProbability` is set.
   */
  private dispatch(datagrams: readonly Buffer[], to: { readonly address: string; readonly port: number }): void {
    const faults = this.currentFaults;
    const now: Buffer[] = [];
    const later: Buffer[] = [];
    for (const d of datagrams) {
      if (faults.lossOutProbability > 0 && this.env.random() < faults.lossOutProbability) {
        this.stats.lostReplies++;
        continue;
      }
      if (faults.reorderProbability > 0 && this.env.random() < faults.reorderProbability) {
        this.stats.reordered++;
        later.push(d);
        continue;
      }
      now.push(d);
    }
    if (now.length > 0) {
      if (faults.latencyMs > 0) this.env.setTimer(() => this.sendAll(now, to), faults.latencyMs);
      else this.sendAll(now, to);
    }
    // A held-back reply always goes through a timer, so it leaves after the ones sent now even with a delay of 0.
    if (later.length > 0) this.env.setTimer(() => this.sendAll(later, to), faults.latencyMs + faults.reorderDelayMs);
  }

  private sendAll(datagrams: readonly Buffer[], to: { readonly address: string; readonly port: number }): void {
    const socket = this.socket;
    if (socket === null) return;
    for (const datagram of datagrams) {
      try {
        socket.send(datagram, to.port, to.address, (err) => {
          if (err) this.stats.sendErrors++;
        });
        this.stats.sent++;
      } catch (err) {
        // The socket closed under us (stop during a latency timer): nothing to answer any more.
        this.stats.sendErrors++;
        this.env.onError(err);
      }
    }
  }
}

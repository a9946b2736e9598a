// Runs plans: concurrent across lights, steps in order within a light, a deadline per light, one result
// per light. `ok` only when the light acknowledged every message; `timed_out` when a known light did not
// answer in time; `offline` when it is known to be gone. Never a hang (architecture.md §2, step 4).

import type { LightClient } from '../discovery/client.js';
import type { FactValues } from '../discovery/registry.js';
import { zonesFromReplies } from '../discovery/zones.js';
import { LightwireError } from '../errors.js';
import { ENUMS, hsbkFromWire, powerFromWire, type Hsbk } from '../protocol/index.js';
import type { DeviceAddress } from '../transport/requester.js';
import type { LightResult, LightView, Plan, PlannedMessage, ResolvedLight } from './types.js';
import { groupNames, lightView, type GroupNames } from './views.js';

export interface ExecuteOptions {
  /** End-state messages only, no read, no reply awaited: resolves once handed to the socket. */
  readonly fast: boolean;
  /** Per light: the read, every step and every retry happen inside it. */
  readonly deadlineMs: number;
  /** Read the current state (and zones) first; ignored in fast mode. */
  readonly read: 'none' | 'state' | 'state+zones';
}

/** Builds the plan for one light from its (freshly read, in non-fast mode) view. */
export type PlanFor = (light: LightView, zones: ResolvedLight['zones']) => Plan;

function result(light: LightView, status: LightResult['status']): LightResult {
  return { id: light.serial, label: light.label, status };
}

/** The firmware effect's name as List Lights shows it (`OFF`, `MOVE`, `MORPH`, `FLAME`, `SKY`). */
export function effectName(names: Readonly<Record<number, string>>, type: number): string {
  return names[type] ?? 'OFF';
}

/**
 * What the light will show once a plan is done, to keep the registry current without waiting for a refresh:
 * power, colour (a non-transient SetWaveformOptional changes only its flagged components) and infrared.
 */
export function factsAfter(plan: Plan, before: Hsbk | null): FactValues {
  const facts: FactValues = {};
  let color = before;
  for (const step of plan.steps) {
    for (const m of step) {
      if (m.name === 'SetLightPower' || m.name === 'SetPower') facts.power = powerFromWire(m.payload.level);
      else if (m.name === 'SetColor') color = hsbkFromWire(m.payload.color);
      else if (m.name === 'SetInfrared') facts.infrared = m.payload.brightness / 0xffff;
      else if (m.name === 'SetMultiZoneEffect') facts.effect = effectName(ENUMS.MultiZoneEffectType, m.payload.settings.type);
      else if (m.name === 'SetTileEffect') facts.effect = effectName(ENUMS.TileEffectType, m.payload.settings.type);
      else if (m.name === 'SetWaveformOptional' && !m.payload.transient && color !== null) {
        const target = hsbkFromWire(m.payload.color);
        color = {
          hue: m.payload.setHue ? target.hue : color.hue,
          saturation: m.payload.setSaturation ? target.saturation : color.saturation,
          brightness: m.payload.setBrightness ? target.brightness : color.brightness,
          kelvin: m.payload.setKelvin ? target.kelvin : color.kelvin,
        };
      }
    }
  }
  if (color !== before && color !== null) facts.color = color;
  return facts;
}

/** The coalesce key of a fast message: its name, plus the zones or tile it paints when it paints only some. */
export function partKey(m: PlannedMessage): string {
  switch (m.name) {
    case 'SetColorZones':
      return `${m.name}:${m.payload.startIndex}-${m.payload.endIndex}`;
    case 'SetExtendedColorZones':
      return `${m.name}:${m.payload.index}+${m.payload.colorsCount}`;
    case 'Set64':
      return `${m.name}:${m.payload.tileIndex}+${m.payload.length}:${m.payload.rect.x},${m.payload.rect.y}`;
    default:
      return m.name;
  }
}

export class Executor {
  constructor(private readonly client: LightClient) {}

  run(targets: readonly ResolvedLight[], planFor: PlanFor, options: ExecuteOptions): Promise<LightResult[]> {
    // One run reads light states, not group or location names: they are resolved once for the whole run.
    const names = groupNames(this.client.registry);
    return Promise.all(targets.map((t) => this.runOne(t, planFor, options, names)));
  }

  private async runOne(target: ResolvedLight, planFor: PlanFor, options: ExecuteOptions, names: GroupNames): Promise<LightResult> {
    const { light } = target;
    const device = this.client.addressOf(light.serial);
    if (!light.online || device === undefined) return result(light, 'offline');
    const deadline = performance.now() + options.deadlineMs;
    const remaining = (): number => Math.max(1, Math.round(deadline - performance.now()));
    const requester = this.client.requester;
    try {
      if (options.fast) {
        const plan = planFor(light, target.zones);
        for (const step of plan.steps) for (const m of step) await this.fire(device, m);
        this.client.registry.update(light.serial, factsAfter(plan, light.color));
        return result(light, 'ok');
      }
      const current = options.read === 'none' ? light : await this.read(device, light, options.read === 'state+zones', remaining, names);
      const plan = planFor(current, target.zones);
      for (const step of plan.steps) {
        await Promise.all(step.map((m) => requester.set(device, m.name, m.payload as never, { timeoutMs: remaining() })));
      }
      this.client.registry.update(light.serial, factsAfter(plan, current.color));
      this.client.registry.answered(light.serial);
      return result(current, 'ok');
    } catch (err) {
      if (err instanceof LightwireError && err.code === 'REQUEST_TIMED_OUT') {
        this.client.registry.missed(light.serial);
        return result(light, 'timed_out');
      }
      if (err instanceof LightwireError && (err.code === 'CLIENT_STOPPED' || err.code === 'REQUEST_CANCELLED')) {
        return result(light, 'offline');
      }
      if (err instanceof LightwireError && err.code === 'UNHANDLED_BY_DEVICE') return result(light, 'timed_out');
      throw err;
    }
  }

  private fire(device: DeviceAddress, m: PlannedMessage): Promise<void> {
    // Messages addressed to part of a light (zones, tiles) only replace a waiting message for the same part.
    return this.client.requester.fire(device, m.name, m.payload as never, { coalesceKey: partKey(m) });
  }

  /** Reads power, colour and label (and zones) and returns the light's refreshed view. */
  private async read(device: DeviceAddress, light: LightView, zones: boolean, remaining: () => number, names: GroupNames): Promise<LightView> {
    const requester = this.client.requester;
    const registry = this.client.registry;
    const state = await requester.get(device, 'GetColor', {}, { timeoutMs: remaining() });
    if (state.name === 'LightState') {
      registry.update(light.serial, {
        color: hsbkFromWire(state.payload.color),
        power: powerFromWire(state.payload.power),
        label: state.payload.label,
      });
    }
    if (zones && light.capabilities.multizone) {
      const replies = light.capabilities.extendedMultizone
        ? await requester.getAll(device, 'GetExtendedColorZones', {}, { timeoutMs: remaining() })
        : await requester.getAll(device, 'GetColorZones', { startIndex: 0, endIndex: 255 }, { timeoutMs: remaining() });
      const z = zonesFromReplies(replies);
      if (z) registry.update(light.serial, { zones: z });
    }
    registry.answered(light.serial);
    const record = registry.get(light.serial);
    return record ? lightView(record, names) : light;
  }
}

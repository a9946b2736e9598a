// The set-state benchmark's side of the fleet process: put every light in a known state, then note when each light
// first shows the requested state and read every light back. Used by fleet-child.ts (requests reset / watch /
// watch-result); the discovery and read-state benchmarks never touch it.

import type { Fleet, VirtualLight } from '../../core/simulator/index.js';
import type { Hsbk, PowerState } from '../../core/protocol/index.js';
import type { FleetReply, TargetState } from './messages.js';

/** Same clock as the client workers' (both processes read the machine's clock). */
const epochNow = (): number => performance.timeOrigin + performance.now();

/** Why a light does not show the target (null: it does). Hue and saturation only count where the product has colour. */
function targetMismatch(light: VirtualLight, target: TargetState): string | null {
  const s = light.state;
  const problems: string[] = [];
  if (target.power === 'off') return s.power === 'off' ? null : `${light.serial} (${light.product.name}): power on`;
  if (s.power !== 'on') problems.push(`power ${s.power}`);
  if (Math.abs(s.color.brightness - target.brightness) > 0.005) problems.push(`brightness ${s.color.brightness.toFixed(3)}`);
  if (light.product.capabilities.color) {
    const hueGap = Math.abs(((s.color.hue - target.hue + 540) % 360) - 180);
    if (hueGap > 0.5) problems.push(`hue ${s.color.hue.toFixed(1)}`);
    if (Math.abs(s.color.saturation - target.saturation) > 0.005) problems.push(`saturation ${s.color.saturation.toFixed(3)}`);
  }
  return problems.length === 0 ? null : `${light.serial} (${light.product.name}): ${problems.join(', ')}`;
}

/** One call's watch: the lights that do not show the target yet, and when the last one did. */
class Watch {
  readonly pending = new Set<VirtualLight>();
  /** When each light first showed the target (epoch ms). */
  readonly shownAt: number[] = [];
  lastShownAt = 0;
  allDone: (() => void) | undefined;
  readonly initiallyPending: number;

  constructor(
    readonly lights: readonly VirtualLight[],
    readonly target: TargetState,
  ) {
    for (const light of lights) if (targetMismatch(light, target) !== null) this.pending.add(light);
    this.initiallyPending = this.pending.size;
  }

  afterSet(light: VirtualLight): void {
    if (!this.pending.has(light) || targetMismatch(light, this.target) !== null) return;
    this.pending.delete(light);
    this.lastShownAt = epochNow();
    this.shownAt.push(this.lastShownAt);
    if (this.pending.size === 0) this.allDone?.();
  }
}

export type WatchResult = Omit<Extract<FleetReply, { type: 'watch-result' }>, 'type'>;

/**
 * Each watched light is checked right after every Set it receives (so nothing polls, and the fleet's event loop does no
 * extra work between packets); with duration 0 a Set is the only way a light's state changes.
 */
export class FleetWatcher {
  private watch: Watch | undefined;
  private hooked = false;

  constructor(private readonly fleet: Fleet) {}

  /** Every light to `power` and `color` at once (no transition); the packet records start afresh. */
  reset(power: PowerState, color: Hsbk): void {
    this.watch = undefined;
    for (const light of this.fleet.lights) light.setState({ power, color });
    this.fleet.clearRecords();
  }

  /** Watches `serials` (default: every light). */
  start(target: TargetState, serials?: readonly string[]): void {
    this.hook();
    const only = serials === undefined ? undefined : new Set(serials);
    this.watch = new Watch(only === undefined ? this.fleet.lights : this.fleet.lights.filter((l) => only.has(l.serial)), target);
  }

  /** Waits until every light showed the target or graceMs passed, then reads every light back. */
  async result(graceMs: number, doneAtEpochMs: number | null): Promise<WatchResult> {
    const w = this.watch;
    if (w === undefined) throw new Error('watch-result without a watch');
    if (w.pending.size > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, graceMs);
        w.allDone = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    this.watch = undefined;
    const problems = w.lights.map((l) => targetMismatch(l, w.target)).filter((p): p is string => p !== null);
    return {
      matched: w.lights.length - problems.length,
      allShownAtEpochMs: w.pending.size === 0 ? w.lastShownAt : null,
      // Lights that already showed it when the watch began count too (none after a reset).
      shownWhenDone: doneAtEpochMs === null ? 0 : w.lights.length - w.initiallyPending + w.shownAt.filter((t) => t <= doneAtEpochMs).length,
      examples: problems.slice(0, 3),
    };
  }

  /** Wraps each light's receive (installed on the first watch only). */
  private hook(): void {
    if (this.hooked) return;
    this.hooked = true;
    for (const light of this.fleet.lights) {
      const receive = light.receive.bind(light);
      light.receive = (packet, from, datagram) => {
        receive(packet, from, datagram);
        if (this.watch !== undefined && packet.name !== null && packet.name.startsWith('Set')) this.watch.afterSet(light);
      };
    }
  }
}

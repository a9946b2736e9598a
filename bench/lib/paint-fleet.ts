// The paint benchmark's fleet, in a worker thread of its own (its event loop never competes with the service under
// test): virtual lights on loopback, and a watch that notes when every watched light first shows what it was asked to
// (checked right after every Set it receives, as set-state-watch.ts does; with duration 0 a Set is the only way a
// light's state changes).

import { parentPort, workerData } from 'node:worker_threads';
import { Fleet, type FleetInput, type VirtualLight } from '../../core/simulator/index.js';
import type { Hsbk } from '../../core/protocol/index.js';
import { guardLoopbackSends } from './net-guard.js';

guardLoopbackSends();

/** What a light must show: the whole hue (degrees) of each pixel of its first tile, or of each zone. */
export interface PaintTarget {
  readonly serial: string;
  readonly part: 'pixels' | 'zones';
  readonly hues: readonly number[];
}

export type PaintFleetRequest =
  | { readonly type: 'reset'; readonly color: Hsbk }
  | { readonly type: 'watch'; readonly targets: readonly PaintTarget[] }
  | { readonly type: 'pending' }
  /** What every light shows now (the hue of each pixel of its first tile, or of each zone): a call's outcome. */
  | { readonly type: 'snapshot'; readonly part: 'pixels' | 'zones' }
  | { readonly type: 'stop' };

export type PaintFleetReply =
  | { readonly type: 'ready'; readonly port: number }
  | { readonly type: 'reset-done' }
  | { readonly type: 'watching' }
  | { readonly type: 'shown'; readonly atEpochMs: number }
  | { readonly type: 'stopped' }
  | { readonly type: 'pending'; readonly count: number; readonly example: string }
  | { readonly type: 'snapshot'; readonly targets: readonly PaintTarget[] };

const epochNow = (): number => performance.timeOrigin + performance.now();

function shows(light: VirtualLight, target: PaintTarget): boolean {
  const s = light.state;
  const colors = target.part === 'pixels' ? s.tiles?.[0] : s.zones;
  if (colors === undefined || colors === null || colors.length !== target.hues.length) return false;
  for (let i = 0; i < colors.length; i++) {
    const gap = Math.abs(((colors[i]!.hue - target.hues[i]! + 540) % 360) - 180);
    if (gap > 1) return false;
  }
  return true;
}

async function main(): Promise<void> {
  const port = parentPort!;
  const fleet = new Fleet(workerData as FleetInput, { port: 0 });
  await fleet.start();
  const bySerial = new Map(fleet.lights.map((l) => [l.serial, l]));
  let pending = new Map<VirtualLight, PaintTarget>();
  for (const light of fleet.lights) {
    const receive = light.receive.bind(light);
    light.receive = (packet, from, datagram) => {
      receive(packet, from, datagram);
      const target = pending.get(light);
      if (target === undefined || packet.name === null || !packet.name.startsWith('Set') && packet.name !== 'CopyFrameBuffer') return;
      if (!shows(light, target)) return;
      pending.delete(light);
      if (pending.size === 0) port.postMessage({ type: 'shown', atEpochMs: epochNow() } satisfies PaintFleetReply);
    };
  }
  port.on('message', (m: PaintFleetRequest) => {
    switch (m.type) {
      case 'reset':
        pending = new Map();
        for (const light of fleet.lights) light.setState({ power: 'on', color: m.color });
        fleet.clearRecords();
        port.postMessage({ type: 'reset-done' } satisfies PaintFleetReply);
        return;
      case 'watch':
        pending = new Map(m.targets.map((t) => [bySerial.get(t.serial)!, t]));
        port.postMessage({ type: 'watching' } satisfies PaintFleetReply);
        return;
      case 'pending': {
        const first = [...pending.entries()][0];
        const example = first === undefined ? '' : `${first[0].serial}: shows ${JSON.stringify((first[1].part === 'pixels' ? first[0].state.tiles?.[0] : first[0].state.zones)?.map((c) => Math.round(c.hue)))}, wants ${JSON.stringify(first[1].hues.map(Math.round))}`;
        port.postMessage({ type: 'pending', count: pending.size, example } satisfies PaintFleetReply);
        return;
      }
      case 'snapshot':
        port.postMessage({
          type: 'snapshot',
          targets: fleet.lights.map((l) => ({ serial: l.serial, part: m.part, hues: ((m.part === 'pixels' ? l.state.tiles?.[0] : l.state.zones) ?? []).map((c) => c.hue) })),
        } satisfies PaintFleetReply);
        return;
      case 'stop':
        void fleet.stop().then(() => {
          port.postMessage({ type: 'stopped' } satisfies PaintFleetReply);
          port.close();
        });
        return;
    }
  });
  port.postMessage({ type: 'ready', port: fleet.port } satisfies PaintFleetReply);
}

void main();

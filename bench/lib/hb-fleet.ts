// The virtual fleet of bench/homebridge.ts, in its own process (so its event loop never competes with the bridge's
// measurements), on 127.0.0.2… port 56700 with the shared broadcast listener on 127.255.255.255:56700: the port
// lifx-lan-client (under homebridge-lifx-plugin) always sends to, and the one Lightwire is told about.
// It tells the parent when a set of lights first shows a brightness (checked after every packet a light receives, so
// nothing polls), makes a light unresponsive on request, and counts the datagrams the lights receive.
// argv: <lights>

import { defaultFleet, Fleet, type VirtualLight } from '../../core/simulator/index.js';
import { guardLoopbackSends } from './net-guard.js';

guardLoopbackSends();

export type HbFleetRequest =
  | { readonly type: 'watch'; readonly id: number; readonly serials: readonly string[]; readonly brightness: number }
  | { readonly type: 'unresponsive'; readonly serial: string; readonly on: boolean }
  | { readonly type: 'count' }
  | { readonly type: 'state'; readonly serial: string }
  | { readonly type: 'stop' };

export type HbFleetReply =
  | { readonly type: 'ready'; readonly serials: readonly string[] }
  | { readonly type: 'watching'; readonly id: number }
  /** Every watched light showed the brightness (epoch ms, the machine's clock, as the parent's). */
  | { readonly type: 'shown'; readonly id: number; readonly atEpochMs: number }
  | { readonly type: 'done' }
  | { readonly type: 'count'; readonly datagrams: number }
  | { readonly type: 'state'; readonly text: string };

const epochNow = (): number => performance.timeOrigin + performance.now();
const send = (m: HbFleetReply): void => void process.send?.(m);

async function main(): Promise<void> {
  const fleet = new Fleet(defaultFleet(Number(process.argv[2])), { port: 56700, mode: 'ip', listenAddress: '127.255.255.255' });
  await fleet.start();
  const bySerial = new Map(fleet.lights.map((l) => [l.serial, l]));
  let datagrams = 0;
  let watch: { id: number; pending: Set<VirtualLight>; brightness: number } | undefined;
  const shows = (light: VirtualLight, brightness: number): boolean => Math.abs(light.state.color.brightness - brightness) <= 0.006;
  for (const light of fleet.lights) {
    const receive = light.receive.bind(light);
    light.receive = (packet, from, datagram) => {
      receive(packet, from, datagram);
      datagrams++;
      if (watch !== undefined && watch.pending.has(light) && shows(light, watch.brightness)) {
        watch.pending.delete(light);
        if (watch.pending.size === 0) {
          send({ type: 'shown', id: watch.id, atEpochMs: epochNow() });
          watch = undefined;
        }
      }
    };
  }
  process.on('message', (m: HbFleetRequest) => {
    switch (m.type) {
      case 'watch': {
        const lights = m.serials.map((s) => bySerial.get(s)!);
        watch = { id: m.id, brightness: m.brightness, pending: new Set(lights.filter((l) => !shows(l, m.brightness))) };
        send({ type: 'watching', id: m.id });
        if (watch.pending.size === 0) {
          send({ type: 'shown', id: m.id, atEpochMs: epochNow() });
          watch = undefined;
        }
        return;
      }
      case 'unresponsive':
        bySerial.get(m.serial)!.setFaults({ unresponsive: m.on });
        return send({ type: 'done' });
      case 'count':
        return send({ type: 'count', datagrams });
      case 'state': {
        const light = bySerial.get(m.serial)!;
        return send({ type: 'state', text: `${light.serial}: ${JSON.stringify(light.state.color)} power ${light.state.power}` });
      }
      case 'stop':
        void fleet.stop().then(() => process.exit(0));
        return;
    }
  });
  process.on('disconnect', () => void fleet.stop().then(() => process.exit(0)));
  send({ type: 'ready', serials: fleet.lights.map((l) => l.serial) });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

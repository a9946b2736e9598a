// A Node-RED runtime (node-red-node-test-helper) with the Lightwire nodes, over virtual lights in this process.
// Discovery broadcasts go to 127.255.255.255 only; the lights live on 127.0.0.x (packets never leave this machine).

import type { Node } from 'node-red';
import { Fleet, type FleetInput } from '../../core/simulator/index.js';
import configNode from '../../nodes/lightwire-config.js';
import discoverNode from '../../nodes/lightwire-discover.js';
import getInfoNode from '../../nodes/lightwire-get-info.js';
import setStateNode from '../../nodes/lightwire-set-state.js';

export const BROADCAST = '127.255.255.255';

export type FlowNode = Record<string, unknown> & { id: string; type: string };

export interface TestNode extends Node {
  receive(msg: Record<string, unknown>): void;
}

interface NodeTestHelper {
  init(runtimePath: string, settings?: Record<string, unknown>): void;
  load(nodes: unknown[], flow: FlowNode[], credentials?: Record<string, unknown>): Promise<void>;
  setFlows(flow: FlowNode[], type?: 'full' | 'flows' | 'nodes', credentials?: Record<string, unknown>): Promise<void>;
  unload(): Promise<void>;
  getNode(id: string): TestNode | null;
  request(): { get(path: string): PromiseLike<{ status: number; body: unknown }> };
  settings(userSettings: Record<string, unknown>): Record<string, unknown>;
  /** The runtime's log calls since the flows were loaded (a sinon spy). */
  log(): { readonly args: unknown[][] };
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
export const helper = require('node-red-node-test-helper') as NodeTestHelper;
helper.init(require.resolve('node-red'));

export const NODES: unknown[] = [configNode, setStateNode, getInfoNode, discoverNode];

/** Colour bulbs (product 91), a white-to-warm bulb (125), a strip (32, 16 zones) in three groups. */
export function smallFleet(): FleetInput {
  return {
    lights: [
      { serial: 'd073d5000001', product: 91, label: 'Kitchen ceiling', group: { label: 'Kitchen' }, location: { label: 'Home' }, power: 'off', color: { hue: 30, saturation: 0.6, brightness: 0.8, kelvin: 3500 } },
      { serial: 'd073d5000002', product: 91, label: 'Kitchen table', group: { label: 'Kitchen' }, location: { label: 'Home' }, power: 'on', color: { hue: 200, saturation: 1, brightness: 0.5, kelvin: 3500 } },
      { serial: 'd073d5000003', product: 125, label: 'Bedside', group: { label: 'Bedroom' }, location: { label: 'Home' }, power: 'off', color: { hue: 0, saturation: 0, brightness: 0.4, kelvin: 2700 } },
      { serial: 'd073d5000004', product: 32, label: 'TV strip', firmware: { major: 2, minor: 80 }, group: { label: 'Living Room' }, location: { label: 'Home' }, zoneCount: 16, power: 'on', color: { hue: 240, saturation: 1, brightness: 0.5, kelvin: 3500 } },
    ],
  };
}

export async function startFleet(input: FleetInput = smallFleet()): Promise<Fleet> {
  const fleet = new Fleet(input, { port: 0 });
  await fleet.start();
  return fleet;
}

/** A config node for the fleet: loopback broadcast on its port, no background refresh, instant transitions. */
export function configFor(fleet: Fleet, extra: Record<string, unknown> = {}): FlowNode {
  return { id: 'cfg', type: 'lightwire-config', name: 'test lights', broadcast: BROADCAST, lanPort: fleet.port, refreshS: 0, durationS: 0, ...extra };
}

export const TAB = 'f1';

/** Flow nodes on one tab (Node-RED tells flow nodes from config nodes by their x and y). */
export function onTab(...nodes: FlowNode[]): FlowNode[] {
  return [{ id: TAB, type: 'tab' }, ...nodes.map((n) => (n.type.endsWith('-config') ? n : { z: TAB, x: 100, y: 100, ...n }))];
}

/** A helper node that records what reaches it. */
export function sink(id: string): FlowNode {
  return { id, type: 'helper' };
}

/** The next message a helper node receives (or a rejection after `ms`). */
export function nextMessage(id: string, ms = 5000): Promise<Record<string, unknown>> {
  const node = helper.getNode(id);
  if (node === null) return Promise.reject(new Error(`no node ${id}`));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      node.removeListener('input', onInput);
      reject(new Error(`no message reached ${id} within ${ms} ms`));
    }, ms);
    const onInput = (msg: Record<string, unknown>): void => {
      clearTimeout(timer);
      node.removeListener('input', onInput);
      resolve(msg);
    };
    (node as unknown as NodeJS.EventEmitter).on('input', onInput);
  });
}

/** Asserts that no message reaches a helper node within `ms`. */
export function noMessage(id: string, ms = 300): Promise<void> {
  const node = helper.getNode(id);
  if (node === null) return Promise.reject(new Error(`no node ${id}`));
  return new Promise((resolve, reject) => {
    const onInput = (msg: Record<string, unknown>): void => {
      clearTimeout(timer);
      reject(new Error(`unexpected message at ${id}: ${JSON.stringify(msg).slice(0, 300)}`));
    };
    const timer = setTimeout(() => {
      node.removeListener('input', onInput);
      resolve();
    }, ms);
    (node as unknown as NodeJS.EventEmitter).on('input', onInput);
  });
}

/** Listens to any event of a node (@types/node-red types only 'input' and 'close'). */
export function listen<T>(id: string, event: string, fn: (arg: T) => void): void {
  const node = helper.getNode(id);
  if (node === null) throw new Error(`no node ${id}`);
  (node as unknown as NodeJS.EventEmitter).on(event, fn as (...args: unknown[]) => void);
}

export interface StatusCall {
  readonly text?: string;
  readonly fill?: string;
}

/** Every status a node shows from now on (the helper wraps node.status in a spy that emits call:status). */
export function statuses(id: string): StatusCall[] {
  const seen: StatusCall[] = [];
  listen<{ args: [StatusCall] }>(id, 'call:status', (call) => {
    seen.push(call.args[0]);
  });
  return seen;
}

/** Every message that reaches a helper node from now on. */
export function collect<T = Record<string, unknown>>(id: string): T[] {
  const got: T[] = [];
  listen<T>(id, 'input', (msg) => {
    got.push(msg);
  });
  return got;
}

/** Sends a message into a node. */
export function inject(id: string, msg: Record<string, unknown>): void {
  const node = helper.getNode(id);
  if (node === null) throw new Error(`no node ${id}`);
  node.receive(msg);
}

/** The messages that change a light (Set*), as a virtual light counts them. */
export function writesTo(fleet: Fleet, serial: string): number {
  return fleet.light(serial).received().filter((p) => p.name !== null && p.name.startsWith('Set')).length;
}

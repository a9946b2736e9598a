// A real Matter controller (matter.js's CommissioningController, npm @project-chip/matter.js) in a process of its
// own, driven over stdin/stdout one JSON line each way. Its own process because matter.js takes over process-wide
// things a test runner owns (signal and unhandled-error traps, exit codes, `--name value` arguments read as its
// settings). Started by matter-harness.ts, inside the tests' private network namespace only.
//
// Requests: {id, op: 'commission', port, passcode, discriminator} | {id, op: 'devices'}
//   | {id, op: 'invoke', endpoint, cluster, command, args} | {id, op: 'attribute', endpoint, cluster, attribute}
//   | {id, op: 'close'}. Answers: {id, ok: true, ...} or {id, ok: false, error}.

import '@matter/main';
import { Environment } from '@matter/main';
import { BridgedDeviceBasicInformation, ColorControl, GeneralCommissioning, IlluminanceMeasurement, LevelControl, OnOff } from '@matter/main/clusters';
import { CommissioningController } from '@project-chip/matter.js';
import type { Endpoint, PairedNode } from '@project-chip/matter.js/device';
import { createInterface } from 'node:readline';

const CLUSTERS = { OnOff, LevelControl, ColorControl, BridgedDeviceBasicInformation, IlluminanceMeasurement } as const;
type ClusterName = keyof typeof CLUSTERS;

interface Request {
  readonly id: number;
  readonly op: 'commission' | 'devices' | 'invoke' | 'attribute' | 'close';
  readonly port?: number;
  readonly passcode?: number;
  readonly discriminator?: number;
  readonly endpoint?: number;
  readonly cluster?: ClusterName;
  readonly command?: string;
  readonly attribute?: string;
  readonly args?: Record<string, unknown>;
}

const storage = process.env.LIGHTWIRE_MATTER_STORAGE;
if (storage === undefined) throw new Error('LIGHTWIRE_MATTER_STORAGE is not set');
const environment = Environment.default;
environment.vars.set('path.root', storage);
environment.vars.set('storage.path', storage);

const controller = new CommissioningController({
  environment: { environment, id: 'lightwire-e2e-controller' },
  autoConnect: false,
  adminFabricLabel: 'Lightwire E2E',
});
let node: PairedNode | undefined;

function send(message: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(message, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v))}\n`);
}

/** Every endpoint of the node, depth first. */
function endpoints(): Endpoint[] {
  if (node === undefined) throw new Error('not commissioned');
  const out: Endpoint[] = [];
  const walk = (list: readonly Endpoint[]): void => {
    for (const e of list) {
      out.push(e);
      walk(e.getChildEndpoints());
    }
  };
  walk(node.getDevices());
  return out;
}

function endpoint(number: number): Endpoint {
  const found = endpoints().find((e) => e.number === number);
  if (found === undefined) throw new Error(`no endpoint ${number}`);
  return found;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- cluster clients are typed per cluster; the test names them as data
function client(number: number, cluster: ClusterName): any {
  const c = endpoint(number).getClusterClient(CLUSTERS[cluster] as never);
  if (c === undefined) throw new Error(`endpoint ${number} has no ${cluster} client`);
  return c;
}

async function handle(request: Request): Promise<Record<string, unknown>> {
  switch (request.op) {
    case 'commission': {
      await controller.start();
      const started = performance.now();
      const nodeId = await controller.commissionNode({
        commissioning: { regulatoryLocation: GeneralCommissioning.RegulatoryLocationType.IndoorOutdoor, regulatoryCountryCode: 'XX' },
        discovery: { knownAddress: { ip: '::1', port: request.port!, type: 'udp' }, identifierData: { longDiscriminator: request.discriminator! } },
        passcode: request.passcode!,
      });
      const commissionedMs = performance.now() - started;
      process.stderr.write(`commissioned node ${String(nodeId)} in ${Math.round(commissionedMs)} ms\n`);
      node = await controller.getNode(nodeId);
      node.connect();
      // Fully read and subscribed: the event may have fired before this line, so the flag is polled too.
      const paired = node;
      await new Promise<void>((resolve) => {
        const timer = setInterval(() => {
          if (!paired.remoteInitializationDone) return;
          clearInterval(timer);
          resolve();
        }, 20);
      });
      return { commissionedMs, initializedMs: performance.now() - started };
    }
    case 'devices': {
      const devices = [];
      for (const e of endpoints()) {
        const info = e.getClusterClient(BridgedDeviceBasicInformation as never) as
          | { getSerialNumberAttribute(): Promise<string>; getNodeLabelAttribute(): Promise<string>; getReachableAttribute(): Promise<boolean> }
          | undefined;
        if (info === undefined || e.number === undefined) continue;
        devices.push({
          endpoint: e.number,
          deviceType: e.deviceType,
          serial: await info.getSerialNumberAttribute(),
          label: await info.getNodeLabelAttribute(),
          reachable: await info.getReachableAttribute(),
        });
      }
      return { devices };
    }
    case 'invoke': {
      const started = performance.now();
      const c = client(request.endpoint!, request.cluster!);
      // A command without fields (OnOff's on, off, toggle) takes no argument at all.
      await (request.args === undefined ? c[request.command!]() : c[request.command!](request.args));
      return { ms: performance.now() - started };
    }
    case 'attribute': {
      const name = request.attribute!;
      const getter = `get${name[0]!.toUpperCase()}${name.slice(1)}Attribute`;
      // From the subscription (the value last reported), not a fresh read: what the controller was told.
      return { value: await client(request.endpoint!, request.cluster!)[getter](false) };
    }
    case 'close':
      await controller.close();
      return {};
  }
}

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const request = JSON.parse(line) as Request;
  handle(request).then(
    (answer) => {
      send({ id: request.id, ok: true, ...answer });
      if (request.op === 'close') process.exit(0);
    },
    (err: unknown) => send({ id: request.id, ok: false, error: err instanceof Error ? `${err.message}` : String(err) }),
  );
});
send({ ready: true });

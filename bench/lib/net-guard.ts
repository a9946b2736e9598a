// The network rule for benchmarks: packets go to this machine only. Two belts:
// - assertPrivateNetns(): the harness refuses to run unless the only interface is loopback (i.e. it runs inside
//   `unshare --net`, as the npm scripts do), so even a mistake cannot reach a real network;
// - guardLoopbackSends(): every dgram send in a bench process (ours, lifx-lan-client's, the fleet's) is checked,
//   and a destination outside 127.0.0.0/8 aborts the process before the packet leaves.

import dgram from 'node:dgram';
import os from 'node:os';

export function assertPrivateNetns(): void {
  const names = Object.entries(os.networkInterfaces())
    .filter(([, infos]) => (infos ?? []).some((i) => !i.internal))
    .map(([name]) => name);
  if (names.length > 0) {
    console.error(
      `refusing to run: non-loopback interfaces present (${names.join(', ')}).\n` +
        `Run through npm (npm run bench:discovery / bench:read-state), which wraps the benchmark in a private ` +
        `network namespace: unshare --net --pid --fork --kill-child bash -c 'ip link set lo up && …'`,
    );
    process.exit(2);
  }
}

function isLoopbackDestination(address: unknown): boolean {
  return typeof address === 'string' && /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(address);
}

let guarded = false;
/** Told of every datagram a guarded socket is given, with its destination (set-state counts them). */
let sendHook: ((address: string) => void) | undefined;

/** Calls `hook` with the destination of every datagram handed to a (guarded) socket from now on. */
export function onSend(hook: (address: string) => void): void {
  sendHook = hook;
}

export function guardLoopbackSends(): void {
  if (guarded) return;
  guarded = true;
  const original = dgram.Socket.prototype.send as (...args: unknown[]) => void;
  // send(msg, [offset, length,] port, address, cb): the address is the first string after the message. Written without
  // rest arguments or closures, so that the guard costs both clients next to nothing per datagram.
  function guardedSend(this: dgram.Socket, _msg: unknown, a?: unknown, b?: unknown, c?: unknown, d?: unknown): void {
    const address = typeof a === 'string' ? a : typeof b === 'string' ? b : typeof c === 'string' ? c : d;
    if (!isLoopbackDestination(address)) {
      console.error(`network rule: refusing to send to ${String(address)} (only 127.0.0.0/8 is allowed)`);
      process.exit(3);
    }
    sendHook?.(address as string);
    // eslint-disable-next-line prefer-rest-params
    return original.apply(this, arguments as unknown as unknown[]);
  }
  (dgram.Socket.prototype as unknown as { send: typeof guardedSend }).send = guardedSend;
}

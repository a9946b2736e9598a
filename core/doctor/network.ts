// The host side of the doctor: IPv4 interfaces with their broadcast addresses (and which of them discovery uses),
// and whether UDP port 56700 can be bound here or which process holds it (Linux: /proc/net/udp and /proc/*/fd).

import { createSocket } from 'node:dgram';
import type os from 'node:os';
import { fsPromises } from '../builtins.js';
import { intToIpv4, ipv4ToInt } from '../discovery/options.js';
import type { InterfaceInfo, PortCheck, PortHolder } from './report.js';

/** Every IPv4 interface (loopback included) with its broadcast address; `discoveryBroadcasts` marks the used ones. */
export function hostInterfaces(interfaces: NodeJS.Dict<os.NetworkInterfaceInfo[]>, discoveryBroadcasts: readonly string[]): InterfaceInfo[] {
  const out: InterfaceInfo[] = [];
  for (const [name, infos] of Object.entries(interfaces)) {
    for (const info of infos ?? []) {
      if (info.family !== 'IPv4') continue;
      const mask = ipv4ToInt(info.netmask);
      const broadcast = intToIpv4((ipv4ToInt(info.address) | ~mask) >>> 0);
      const prefixBits = mask.toString(2).replace(/0/g, '').length;
      out.push({ name, address: info.address, prefixBits, broadcast, internal: info.internal, usedForDiscovery: discoveryBroadcasts.includes(broadcast) });
    }
  }
  return out;
}

/** Inodes of the UDP sockets bound to `port` in a /proc/net/udp listing. */
export function udpSocketInodes(listing: string, port: number): string[] {
  const inodes: string[] = [];
  for (const line of listing.split('\n').slice(1)) {
    const cols = line.trim().split(/\s+/);
    const local = cols[1];
    const inode = cols[9];
    if (local === undefined || inode === undefined) continue;
    const portHex = local.split(':')[1];
    if (portHex !== undefined && parseInt(portHex, 16) === port && inode !== '0') inodes.push(inode);
  }
  return inodes;
}

/** The processes whose open files include one of these socket inodes (those this process may look at). */
async function socketHolders(inodes: readonly string[]): Promise<PortHolder[]> {
  const wanted = new Set(inodes.map((i) => `socket:[${i}]`));
  const { readdir, readFile, readlink } = fsPromises();
  const holders: PortHolder[] = [];
  let pids: string[];
  try {
    pids = (await readdir('/proc')).filter((d) => /^\d+$/.test(d));
  } catch {
    return holders;
  }
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = await readdir(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
      if (!wanted.has(target)) continue;
      const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
      const command = cmdline.split('\0').filter((s) => s !== '').join(' ') || (await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '?')).trim();
      holders.push({ pid: Number(pid), command: command.length > 120 ? `${command.slice(0, 117)}...` : command });
      break;
    }
  }
  return holders;
}

/**
 * Whether this process could bind UDP `port` on `address` (without SO_REUSEADDR, as a second app would), and
 * if not, who holds it.
 */
export async function checkPort(port: number, address = '0.0.0.0'): Promise<PortCheck> {
  const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
    const socket = createSocket({ type: 'udp4', reuseAddr: false });
    socket.once('error', (err) => {
      socket.close();
      resolve(err);
    });
    socket.bind({ port, address, exclusive: true }, () => socket.close(() => resolve(null)));
  });
  if (error === null) return { port, bindable: true, holders: [], detail: 'free: this machine can bind it' };
  if (error.code !== 'EADDRINUSE') return { port, bindable: false, holders: [], detail: `cannot be bound: ${error.code ?? error.message}` };
  const listing = await fsPromises().readFile('/proc/net/udp', 'utf8').catch(() => '');
  const holders = await socketHolders(udpSocketInodes(listing, port));
  const who = holders.length > 0 ? `held by ${holders.map((h) => `pid ${h.pid} (${h.command})`).join(', ')}` : 'held by another program (not one this user can see)';
  return {
    port,
    bindable: false,
    holders,
    detail: `in use, ${who}: firmware 1.x lights reply to port ${port}, so only one app on this machine can talk to them; newer firmware is not affected`,
  };
}

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

/** Flags whose value is a secret (`--token T`, `--password=P`, `--api-key K`): masked wherever a command line is shown. */
const SECRET_FLAG = /^-{1,2}[\w.-]*(?:token|passw(?:or)?d|secret|key|credential|auth)[\w.-]*$/i;
/** `NAME=value` arguments (an `env` prefix) whose name says secret. */
const SECRET_ASSIGNMENT = /^([A-Za-z_][\w]*(?:TOKEN|PASSWORD|PASSWD|SECRET|KEY|CREDENTIAL|AUTH)[\w]*)=/i;

/**
 * A command line (its arguments) with what looks secret masked: the values of secret-looking flags, secret-looking
 * `NAME=value` assignments and the password of a URL (`scheme://user:password@host`). A process's command line can carry
 * another server's access tokens (`lightwire serve --token T`), and the doctor's report is read by whoever may read.
 */
export function maskSecrets(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const eq = arg.indexOf('=');
    const assignment = SECRET_ASSIGNMENT.exec(arg);
    if (arg.startsWith('-') && eq > 0 && SECRET_FLAG.test(arg.slice(0, eq))) out.push(`${arg.slice(0, eq)}=***`);
    else if (!arg.startsWith('-') && assignment !== null) out.push(`${assignment[1]}=***`);
    else if (SECRET_FLAG.test(arg) && i + 1 < args.length) {
      out.push(arg, '***');
      i++;
    } else out.push(arg.replace(/(\/\/[^/:@\s]*:)[^@/\s]*@/g, '$1***@'));
  }
  return out;
}

/** How much of a holder's command line to show: all of it (secrets masked), or the process name alone. */
export type CommandDetail = 'masked' | 'name';

/** The processes whose open files include one of these socket inodes (those this process may look at). */
async function socketHolders(inodes: readonly string[], detail: CommandDetail): Promise<PortHolder[]> {
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
      const args = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0').filter((s) => s !== '');
      // By name: the program as started (its path's last part), none of its arguments.
      const shown = detail === 'masked' ? maskSecrets(args).join(' ') : (args[0]?.split('/').pop() ?? '');
      const command = shown || (await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '?')).trim();
      holders.push({ pid: Number(pid), command: command.length > 120 ? `${command.slice(0, 117)}...` : command });
      break;
    }
  }
  return holders;
}

export interface CheckPortOptions {
  readonly address?: string;
  /**
   * How much of each holder's command line the check names: 'masked' (default: the whole line, secret-looking values
   * masked; `lightwire doctor`, run by the user on this machine) or 'name' (the program's name alone: a report served
   * over HTTP, whose readers need not see other programs' arguments).
   */
  readonly commands?: CommandDetail;
}

/**
 * Whether this process could bind UDP `port` on `address` (without SO_REUSEADDR, as a second app would), and
 * if not, who holds it. Held by this very process alone (a server with virtual lights listening there), it is said so.
 */
export async function checkPort(port: number, options: CheckPortOptions = {}): Promise<PortCheck> {
  const address = options.address ?? '0.0.0.0';
  const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
    const socket = createSocket({ type: 'udp4', reuseAddr: false });
    socket.once('error', (err) => {
      socket.close();
      resolve(err);
    });
    socket.bind({ port, address, exclusive: true }, () => socket.close(() => resolve(null)));
  });
  if (error === null) return { port, bindable: true, heldByThisProcess: false, holders: [], detail: 'free: this machine can bind it' };
  if (error.code !== 'EADDRINUSE') return { port, bindable: false, heldByThisProcess: false, holders: [], detail: `cannot be bound: ${error.code ?? error.message}` };
  const listing = await fsPromises().readFile('/proc/net/udp', 'utf8').catch(() => '');
  const found = await socketHolders(udpSocketInodes(listing, port), options.commands ?? 'masked');
  // This process as /proc numbers it (in a PID namespace without its own /proc, not process.pid).
  const self = Number(await fsPromises().readlink('/proc/self').catch(() => String(process.pid)));
  const holders = found.map((h) => (h.pid === self ? { pid: h.pid, command: 'this process' } : h));
  if (holders.length > 0 && holders.every((h) => h.pid === self)) {
    return { port, bindable: false, heldByThisProcess: true, holders, detail: `in use by this process itself (pid ${self}, e.g. its virtual lights), no other program` };
  }
  const who = holders.length > 0 ? `held by ${holders.map((h) => `pid ${h.pid} (${h.command})`).join(', ')}` : 'held by another program (not one this user can see)';
  return {
    port,
    bindable: false,
    heldByThisProcess: false,
    holders,
    detail: `in use, ${who}: firmware 1.x lights reply to port ${port}, so only one app on this machine can talk to them (stop the other app, or use lights with newer firmware, which are not affected)`,
  };
}

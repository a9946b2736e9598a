// Node's built-in modules that only some paths need, loaded on first use.
//
// A client that finds, reads and sets lights needs node:dgram, node:os and node:events. The rest is for other paths:
// node:crypto (HTTP uuids, scene ids, effect instance ids), node:fs/promises (scene files, the doctor) and node:dns
// (a host name as a destination). Loaded at start-up they cost about 2 MiB of heap and 4 MiB of resident code in
// every process that imports the library (node:crypto alone: 1 MiB and 2.3 MiB, measured with Node 24), whether or
// not it takes those paths. process.getBuiltinModule (Node 22.3) loads a built-in synchronously, on the first call.

/** setTimeout's longest delay (2^31 - 1 ms, about 24.8 days): Node fires a longer one after 1 ms instead. */
export const MAX_TIMER_MS = 0x7fffffff;

export const nodeCrypto = (): typeof import('node:crypto') => process.getBuiltinModule('node:crypto');
export const fsPromises = (): typeof import('node:fs/promises') => process.getBuiltinModule('node:fs/promises');
export const dns = (): typeof import('node:dns') => process.getBuiltinModule('node:dns');

const IPV4_OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])';
const IPV4 = new RegExp(`^${IPV4_OCTET}(?:\\.${IPV4_OCTET}){3}$`);
/** The address isIPv4 last accepted: a light's messages go out in twos and threes, each one checked twice (udp.ts). */
let lastIPv4: string | undefined;

/**
 * A dotted-quad IPv4 address: four decimal octets 0-255 without leading zeros, as node:net's isIPv4 accepts (the same
 * pattern), without loading node:net (0.6 MiB of heap and 1.6 MiB of resident code) on the datagram path. The CLI,
 * which reaches the core through its public entries only, keeps node:net's.
 */
export function isIPv4(text: string): boolean {
  if (text === lastIPv4) return true;
  if (!IPV4.test(text)) return false;
  lastIPv4 = text;
  return true;
}

/**
 * A random integer 1 to 2^32 - 1: a client's source id, an effect's instance id. They only need to differ from other
 * clients' and effects', not to be unguessable, so Math.random serves and node:crypto stays
 * unloaded.
 */
export function randomNonZeroUint32(): number {
  return 1 + Math.floor(Math.random() * 0xffff_ffff);
}

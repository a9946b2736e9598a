// UDP receive drops. /proc/net/snmp's RcvbufErrors counts datagrams dropped because a socket's receive buffer was
// full, for the whole network namespace (the bench runs in its own, so only the fleet and one client are in it);
// /proc/net/udp's last column counts drops per socket.

import { readFileSync } from 'node:fs';

/** Udp RcvbufErrors of this network namespace. */
export function rcvbufErrors(): number {
  const lines = readFileSync('/proc/net/snmp', 'utf8').split('\n').filter((l) => l.startsWith('Udp:'));
  const names = lines[0]?.split(/\s+/) ?? [];
  const values = lines[1]?.split(/\s+/) ?? [];
  const i = names.indexOf('RcvbufErrors');
  if (i < 0) throw new Error('no Udp RcvbufErrors in /proc/net/snmp');
  return Number(values[i]);
}

/** Drops counted on the UDP socket(s) bound to this local port (any address). */
export function socketDrops(port: number): number {
  const hexPort = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  let drops = 0;
  for (const line of readFileSync('/proc/net/udp', 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 13 || !fields[1]!.endsWith(hexPort)) continue;
    drops += Number(fields[fields.length - 1]);
  }
  return drops;
}

// IPv4 arithmetic for the virtual lights' addresses, and the loopback checks that keep the simulator and its
// control endpoint on this machine (tests send packets to this machine only).

/** Where virtual lights hear discovery: the loopback broadcast address (a socket bound to it gets exactly those). */
export const LOOPBACK_BROADCAST = '127.255.255.255';
/** Where a client talking only to virtual lights binds. */
export const LOOPBACK_ADDRESS = '127.0.0.1';

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** Parses a dotted quad to a u32, or null when it is not one. */
export function parseIpv4(text: string): number | null {
  const m = IPV4.exec(text);
  if (m === null) return null;
  let value = 0;
  for (let i = 1; i <= 4; i++) {
    const octet = Number(m[i]);
    if (octet > 255 || (m[i]!.length > 1 && m[i]!.startsWith('0'))) return null;
    value = value * 256 + octet;
  }
  return value;
}

export function formatIpv4(value: number): string {
  return `${value >>> 24}.${(value >>> 16) & 0xff}.${(value >>> 8) & 0xff}.${value & 0xff}`;
}

/**
 * `count` consecutive addresses from `base`, skipping host octets 0 and 255 (so 127.0.0.254 is followed by
 * 127.0.1.1): 500 lights from 127.0.0.2 end at 127.0.1.247. Returns null when the range would leave base's /8
 * (for 127.0.0.0/8 this keeps every light on loopback).
 */
export function allocateAddresses(base: string, count: number): string[] | null {
  let value = parseIpv4(base);
  if (value === null) return null;
  const slash8 = value >>> 24;
  const out: string[] = [];
  while (out.length < count) {
    const last = value & 0xff;
    if (last !== 0 && last !== 255) out.push(formatIpv4(value));
    value++;
    if (value >>> 24 !== slash8) return null;
  }
  return out;
}

export function isLoopbackIpv4(text: string): boolean {
  const value = parseIpv4(text);
  return value !== null && value >>> 24 === 127;
}

/** True for hosts that only this machine can reach: 127.0.0.0/8, ::1 and `localhost`. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || isLoopbackIpv4(host);
}

// The network doctor's report and the rules that name a cause, all pure: the I/O (doctor.ts, network.ts,
// probe.ts) gathers observations, this module judges them. It answers the
// complaints users repeat most: bulbs shown offline, discovery failing on some hosts, commands silently lost.

import { printable, tableLines } from '../text.js';
import type { SignalQuality } from '../protocol/index.js';

/** A light losing at least this share of its transmissions is unhealthy (one in five needs a retry). */
export const LOSS_UNHEALTHY = 0.2;

export type ProblemKind =
  /** Nothing answered GetService at a static host, nor at the other ports tried there. */
  | 'no_reply'
  /** Answers unicast but not broadcast: another VLAN or subnet. */
  | 'unicast_only'
  /** Nothing at the configured port, but the address answers on another one. */
  | 'wrong_port'
  /** The light answers at another address than the one it was expected or last seen at. */
  | 'moved'
  /** Answers discovery (GetService) but no request. */
  | 'unresponsive'
  /** Known, but answers nothing now: not to its address, not to broadcast. */
  | 'offline'
  /** Expected but never heard from. */
  | 'missing'
  | 'lossy'
  /** Fewer lights answered than --expect asked for. */
  | 'too_few'
  /** No light answered at all (nothing was expected by name or count): nothing to call healthy. */
  | 'none_found'
  /** No IPv4 interface to broadcast on and no static host: discovery cannot reach anything. */
  | 'no_discovery_route';

export interface Problem {
  /** What it is about: `d073d5000001 "Kitchen"`, `static host 10.0.0.5:56700`, `discovery`. */
  readonly subject: string;
  readonly kind: ProblemKind;
  /** The likely cause, in words, with what to do. */
  readonly cause: string;
}

export interface InterfaceInfo {
  readonly name: string;
  readonly address: string;
  /** Prefix length, e.g. 24. */
  readonly prefixBits: number;
  readonly broadcast: string;
  readonly internal: boolean;
  /** Discovery broadcasts to this interface's broadcast address. */
  readonly usedForDiscovery: boolean;
}

export interface PortHolder {
  readonly pid: number;
  readonly command: string;
}

export interface PortCheck {
  readonly port: number;
  readonly bindable: boolean;
  /**
   * Taken by this very process alone (a server whose virtual lights listen there): no other app competes for it.
   * Optional for reports built by hand; checkPort always says.
   */
  readonly heldByThisProcess?: boolean;
  /** Processes holding the port, when it is taken and they can be found (Linux /proc). */
  readonly holders: readonly PortHolder[];
  readonly detail: string;
}

export interface LightHealth {
  readonly serial: string;
  /** Counts for the verdict: named with --serial (or, when none is named, every light found). */
  readonly expected: boolean;
  readonly label: string | null;
  readonly product: string | null;
  /** `ip:port` where it answers (or was last seen), null when never seen. */
  readonly address: string | null;
  readonly online: boolean;
  readonly healthy: boolean;
  readonly kind: ProblemKind | null;
  readonly cause: string | null;
  readonly rttMedianMs: number | null;
  readonly rttP99Ms: number | null;
  /** Share (0-1) of transmissions that went unanswered, null without any. */
  readonly lossRate: number | null;
  readonly retransmits: number;
  readonly requests: number;
  readonly timeouts: number;
  readonly signal: SignalQuality | null;
  readonly rssi: number | null;
  readonly firmware: string | null;
  readonly uptimeS: number | null;
  /** Epoch ms of the last packet from it, null when never seen. */
  readonly lastSeenAt: number | null;
  /** How often its address changed while watched, and the addresses it had before. */
  readonly addressChanges: number;
  readonly previousAddresses: readonly string[];
}

export interface StaticHostHealth {
  readonly host: string;
  readonly answered: boolean;
  readonly serials: readonly string[];
  readonly kind: ProblemKind | null;
  readonly cause: string | null;
}

export interface DoctorReport {
  /** ISO 8601. */
  readonly generatedAt: string;
  readonly durationMs: number;
  readonly healthy: boolean;
  readonly summary: string;
  readonly interfaces: readonly InterfaceInfo[];
  readonly discovery: { readonly broadcastAddresses: readonly string[]; readonly port: number; readonly staticHosts: readonly string[] };
  readonly port: PortCheck | null;
  /** Transmissions per light behind the RTT and loss figures (0: the service's figures since it started, or since the light came back online). */
  readonly probeCount: number;
  readonly lights: readonly LightHealth[];
  readonly staticHosts: readonly StaticHostHealth[];
  readonly problems: readonly Problem[];
}

// ---- figures ----

/** The middle value, null for none. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The nearest-rank percentile (p in 0-100), null for none. */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * s.length);
  return s[Math.min(s.length, Math.max(1, rank)) - 1]!;
}

export function lossRate(lostAttempts: number, attempts: number): number | null {
  return attempts > 0 ? lostAttempts / attempts : null;
}

const round1 = (v: number | null): number | null => (v === null ? null : Math.round(v * 10) / 10);

// ---- causes ----

export interface Endpoint {
  readonly address: string;
  readonly port: number;
}

export const showEndpoint = (e: Endpoint): string => `${e.address}:${e.port}`;

/** What was seen of one light, or of one expected serial, during the run. */
export interface LightObservation {
  readonly serial: string;
  readonly label: string | null;
  /** Where the client knows it (its last StateService), null when never heard. */
  readonly known: Endpoint | null;
  /** Where the user said to expect it, or where it was before its last move. */
  readonly expectedAt: Endpoint | null;
  /** The registry says it answers (false after several missed reads). */
  readonly online: boolean;
  /** Exchanges in the measured window. */
  readonly requests: number;
  readonly answered: number;
  readonly attempts: number;
  readonly lostAttempts: number;
  readonly retransmits: number;
  readonly timeouts: number;
  readonly rttMs: readonly number[];
  /** Where a broadcast GetService found it during the run; null when no broadcast probe ran. */
  readonly broadcastAt: readonly Endpoint[] | null;
  /** Whether it answered a unicast GetService at its known (or expected) address; null when not probed. */
  readonly unicastAnswered: boolean | null;
  readonly signal: SignalQuality | null;
  readonly rssi: number | null;
  readonly product: string | null;
  readonly firmware: string | null;
  readonly uptimeS: number | null;
  readonly lastSeenAt: number | null;
  readonly previousAddresses: readonly string[];
}

export interface Verdict {
  readonly healthy: boolean;
  readonly kind: ProblemKind | null;
  readonly cause: string | null;
}

const same = (a: Endpoint, b: Endpoint): boolean => a.address === b.address && a.port === b.port;

/** The verdict on one light, from what was seen of it. */
export function judgeLight(o: LightObservation): Verdict {
  const where = o.known ?? o.expectedAt;
  const elsewhere = (o.broadcastAt ?? []).find((e) => where === null || !same(e, where));
  const loss = lossRate(o.lostAttempts, o.attempts);
  if (o.known === null) {
    if (o.expectedAt !== null && o.unicastAnswered === true) {
      return bad('unicast_only', `replies to unicast at ${showEndpoint(o.expectedAt)} but not to broadcast: it is probably on another VLAN or subnet (broadcasts do not cross routers); add it as a static host (--light ${showEndpoint(o.expectedAt)})`);
    }
    if (o.expectedAt !== null && elsewhere !== undefined) {
      return bad('moved', `seen on another address: it answers at ${showEndpoint(elsewhere)}, not at ${showEndpoint(o.expectedAt)} (a new DHCP lease?); use the new address or reserve one for it`);
    }
    if (o.expectedAt !== null) {
      return bad('missing', `no reply on unicast at ${showEndpoint(o.expectedAt)} nor to broadcast: powered off (at the wall?), out of Wi-Fi range, or at another address`);
    }
    return bad('missing', 'no reply to broadcast: powered off, out of Wi-Fi range, or on another VLAN (give SERIAL@IP to check it by unicast)');
  }
  // Offline in the client's eyes (its reads went unanswered) or silent to every request measured now: answers from
  // before it went offline (a report from the service's totals) do not make it healthy.
  const silent = !o.online || (o.attempts > 0 && o.answered === 0);
  if (silent) {
    if (elsewhere !== undefined) {
      return bad('moved', `seen on another address: it answers discovery at ${showEndpoint(elsewhere)}, requests to ${showEndpoint(o.known)} go unanswered (a new DHCP lease?)`);
    }
    if (o.unicastAnswered === true || (o.broadcastAt ?? []).some((e) => same(e, o.known!))) {
      return bad('unresponsive', 'answers discovery (GetService) but not requests: its firmware is busy or hung; switch it off and on');
    }
    return bad('offline', `stopped answering at ${showEndpoint(o.known)}: no reply on unicast${o.broadcastAt !== null ? ' nor to broadcast' : ''} (powered off at the wall, or out of Wi-Fi range)`);
  }
  if (loss !== null && loss >= LOSS_UNHEALTHY) {
    const signal = o.signal === null ? '' : ` (signal ${o.signal}${o.rssi !== null ? `, ${o.rssi}` : ''})`;
    return bad('lossy', `loses ${Math.round(loss * 100)} % of transmissions${signal}: weak Wi-Fi, interference or a busy access point; move it or the access point, or change the 2.4 GHz channel`);
  }
  if (o.broadcastAt !== null && o.broadcastAt.length === 0 && o.unicastAnswered === true) {
    return { healthy: true, kind: 'unicast_only', cause: `replies to unicast at ${showEndpoint(o.known)} but not to broadcast: it is probably on another VLAN or subnet; keep it as a static host` };
  }
  if (o.expectedAt !== null && !same(o.expectedAt, o.known)) {
    // Healthy where it is; the expected address is wrong (the problem is listed for the address, not the light).
    return { healthy: true, kind: 'moved', cause: `seen on another address: answers at ${showEndpoint(o.known)}, not at ${showEndpoint(o.expectedAt)}` };
  }
  return { healthy: true, kind: null, cause: null };
}

function bad(kind: ProblemKind, cause: string): Verdict {
  return { healthy: false, kind, cause };
}

/** What was seen at one configured static host. */
export interface HostObservation {
  readonly host: Endpoint;
  /** Serials that answered GetService there. */
  readonly serials: readonly string[];
  /** Other ports of the same address that answered. */
  readonly otherPorts: readonly { readonly port: number; readonly serials: readonly string[] }[];
  /** Lights known elsewhere that were last seen at this address (they moved away). */
  readonly movedAway: readonly { readonly serial: string; readonly now: Endpoint }[];
}

export function judgeHost(o: HostObservation): StaticHostHealth {
  const host = showEndpoint(o.host);
  if (o.serials.length > 0) return { host, answered: true, serials: o.serials, kind: null, cause: null };
  const other = o.otherPorts.find((p) => p.serials.length > 0);
  if (other !== undefined) {
    return { host, answered: false, serials: [], kind: 'wrong_port', cause: `wrong port: nothing answers on ${o.host.port}, but ${o.host.address} answers on port ${other.port} (${other.serials.join(', ')}); configure ${o.host.address}:${other.port}` };
  }
  const moved = o.movedAway[0];
  if (moved !== undefined) {
    return { host, answered: false, serials: [], kind: 'moved', cause: `seen on another address: ${moved.serial} used to answer here and now answers at ${showEndpoint(moved.now)}` };
  }
  return {
    host,
    answered: false,
    serials: [],
    kind: 'no_reply',
    cause: `no reply on unicast: nothing answers GetService at ${host} (no light at this address, powered off, or a firewall drops UDP ${o.host.port})`,
  };
}

// ---- the whole report ----

export interface ReportInput {
  readonly startedAtMs: number;
  readonly endedAtMs: number;
  readonly interfaces: readonly InterfaceInfo[];
  readonly discovery: DoctorReport['discovery'];
  readonly port: PortCheck | null;
  readonly probeCount: number;
  readonly lights: readonly LightObservation[];
  readonly hosts: readonly HostObservation[];
  /** --expect N: at least this many lights should answer. */
  readonly expectCount: number | null;
  /** The lights that count for the verdict; null: every light. */
  readonly expectedSerials: ReadonlySet<string> | null;
}

export function lightLabel(serial: string, label: string | null): string {
  return label ? `${serial} "${label}"` : serial;
}

/** Judges every observation and writes the report: healthy when every expected light and static host is. */
export function buildReport(input: ReportInput): DoctorReport {
  const problems: Problem[] = [];
  const lights: LightHealth[] = input.lights.map((o) => {
    const v = judgeLight(o);
    if (!v.healthy && v.kind !== null && v.cause !== null) problems.push({ subject: lightLabel(o.serial, o.label), kind: v.kind, cause: v.cause });
    const address = o.known ?? o.expectedAt;
    return {
      serial: o.serial,
      expected: input.expectedSerials === null || input.expectedSerials.has(o.serial),
      label: o.label,
      product: o.product,
      address: address === null ? null : showEndpoint(address),
      online: o.known !== null && o.online && !(o.attempts > 0 && o.answered === 0),
      healthy: v.healthy,
      kind: v.kind,
      cause: v.cause,
      rttMedianMs: round1(median(o.rttMs)),
      rttP99Ms: round1(percentile(o.rttMs, 99)),
      lossRate: (() => {
        const l = lossRate(o.lostAttempts, o.attempts);
        return l === null ? null : Math.round(l * 1000) / 1000;
      })(),
      retransmits: o.retransmits,
      requests: o.requests,
      timeouts: o.timeouts,
      signal: o.signal,
      rssi: o.rssi,
      firmware: o.firmware,
      uptimeS: o.uptimeS,
      lastSeenAt: o.lastSeenAt,
      addressChanges: o.previousAddresses.length,
      previousAddresses: o.previousAddresses,
    };
  });
  const staticHosts = input.hosts.map(judgeHost);
  for (const h of staticHosts) if (!h.answered && h.kind !== null && h.cause !== null) problems.push({ subject: `static host ${h.host}`, kind: h.kind, cause: h.cause });
  const answering = lights.filter((l) => l.online).length;
  if (input.expectCount !== null && answering < input.expectCount) {
    problems.push({ subject: 'discovery', kind: 'too_few', cause: `${answering} of ${input.expectCount} expected lights answered` });
  }
  // Nothing answered at all (not the broadcast, not a static host, not an expected light's address): say where the
  // doctor looked and what stops every light at once, whether or not lights were expected by name or count.
  const nothingAnswered = !input.lights.some((o) => o.known !== null || o.unicastAnswered === true) && !input.hosts.some((h) => h.serials.length > 0);
  if (!input.interfaces.some((i) => i.usedForDiscovery) && input.discovery.broadcastAddresses.length === 0 && input.discovery.staticHosts.length === 0) {
    problems.push({
      subject: 'discovery',
      kind: 'no_discovery_route',
      cause: 'no IPv4 interface to broadcast on and no static host: discovery cannot reach any light; connect this machine to the lights\' network, or give a broadcast address or a light\'s address (--broadcast ADDR, --light IP)',
    });
  } else if (nothingAnswered) {
    problems.push({
      subject: 'discovery',
      kind: 'none_found',
      cause: `no light answered on ${[...input.discovery.broadcastAddresses, ...input.discovery.staticHosts].join(', ')} (port ${input.discovery.port}): lights powered off, on another VLAN or subnet (give their addresses as static hosts), or a firewall dropping UDP ${input.discovery.port}`,
    });
  }
  const expected = lights.filter((l) => l.expected);
  const healthyLights = expected.filter((l) => l.healthy).length;
  const silentHosts = staticHosts.filter((h) => !h.answered).length;
  const others = lights.length - expected.length;
  const summary =
    `${healthyLights} of ${expected.length} ${input.expectedSerials === null ? '' : 'expected '}light${expected.length === 1 ? '' : 's'} healthy` +
    (others > 0 ? ` (${others} other${others === 1 ? '' : 's'} found)` : '') +
    (staticHosts.length > 0 ? `, ${staticHosts.length - silentHosts} of ${staticHosts.length} static host${staticHosts.length === 1 ? '' : 's'} answering` : '') +
    (problems.length > 0 ? `; ${problems.length} problem${problems.length === 1 ? '' : 's'}` : '');
  return {
    generatedAt: new Date(input.endedAtMs).toISOString(),
    durationMs: Math.round(input.endedAtMs - input.startedAtMs),
    // Problems of lights nobody asked about are listed, but do not decide the verdict.
    healthy: expected.every((l) => l.healthy) && silentHosts === 0 && !problems.some((p) => p.kind === 'too_few' || p.kind === 'none_found' || p.kind === 'no_discovery_route'),
    summary,
    interfaces: input.interfaces,
    discovery: input.discovery,
    port: input.port,
    probeCount: input.probeCount,
    lights,
    staticHosts,
    problems,
  };
}

// ---- text ----

function ago(ms: number | null, nowMs: number): string {
  if (ms === null) return '-';
  const s = Math.max(0, Math.round((nowMs - ms) / 1000));
  return s < 120 ? `${s} s ago` : s < 7200 ? `${Math.round(s / 60)} min ago` : `${Math.round(s / 3600)} h ago`;
}

function uptime(s: number | null): string {
  if (s === null) return '-';
  if (s < 3600) return `${Math.round(s / 60)} min`;
  if (s < 172800) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} d`;
}

/** The report as text for a terminal. */
export function formatReport(r: DoctorReport, nowMs: number = Date.parse(r.generatedAt)): string {
  const out: string[] = ['Network'];
  for (const i of r.interfaces) {
    out.push(`  ${i.name.padEnd(10)} ${`${i.address}/${i.prefixBits}`.padEnd(18)} broadcast ${i.broadcast.padEnd(15)}${i.usedForDiscovery ? '  used for discovery' : ''}`);
  }
  const extra = r.discovery.broadcastAddresses.filter((a) => !r.interfaces.some((i) => i.broadcast === a && i.usedForDiscovery));
  if (extra.length > 0) out.push(`  broadcast also to ${extra.join(', ')}`);
  out.push(`  discovery port ${r.discovery.port}${r.discovery.staticHosts.length > 0 ? `; static hosts ${r.discovery.staticHosts.join(', ')}` : ''}`);
  if (r.port !== null) out.push(`  UDP ${r.port.port}: ${r.port.detail}`);
  out.push('', `Lights (${r.probeCount > 0 ? `${r.probeCount} probes each` : 'figures since the service started, or since each light came back online'})`);
  if (r.lights.length === 0) out.push('  none found');
  else {
    const rows = r.lights.map((l) => [
      l.serial,
      l.label ?? '-',
      l.address ?? '-',
      l.rttMedianMs === null ? '-' : `${l.rttMedianMs}/${l.rttP99Ms} ms`,
      l.lossRate === null ? '-' : `${Math.round(l.lossRate * 1000) / 10} %`,
      String(l.retransmits),
      l.signal === null ? '-' : `${l.signal}${l.rssi !== null ? ` (${l.rssi})` : ''}`,
      l.firmware ?? '-',
      uptime(l.uptimeS),
      ago(l.lastSeenAt, nowMs),
      String(l.addressChanges),
      l.healthy ? 'ok' : (l.kind ?? 'unhealthy'),
    ]);
    out.push(...tableLines(['SERIAL', 'LABEL', 'ADDRESS', 'RTT MED/P99', 'LOSS', 'RETX', 'SIGNAL', 'FIRMWARE', 'UPTIME', 'LAST SEEN', 'MOVES', 'STATUS'], rows).map((l) => `  ${l}`));
  }
  if (r.staticHosts.length > 0) {
    out.push('', 'Static hosts');
    for (const h of r.staticHosts) out.push(`  ${h.host.padEnd(22)} ${h.answered ? `answers (${h.serials.join(', ')})` : (h.kind ?? 'silent')}`);
  }
  // A label is whatever a light (or anyone on the LAN) set: shown escaped, never obeyed by the terminal.
  if (r.problems.length > 0) {
    out.push('', 'Problems');
    for (const p of r.problems) out.push(`  ${printable(p.subject)}: ${printable(p.cause)}`);
    // Which light is missing the doctor cannot know; named, it is asked by unicast and judged.
    if (r.problems.some((p) => p.kind === 'too_few')) out.push('  To learn why a light is missing, name it: --serial SERIAL[@IP] (its last known address is asked by unicast).');
  }
  const notes = r.lights.filter((l) => l.healthy && l.cause !== null);
  if (notes.length > 0) {
    out.push('', 'Notes');
    for (const l of notes) out.push(`  ${printable(lightLabel(l.serial, l.label))}: ${printable(l.cause!)}`);
  }
  out.push('', `${r.healthy ? 'Healthy' : 'Unhealthy'}: ${r.summary} (${(r.durationMs / 1000).toFixed(1)} s)`);
  return `${out.join('\n')}\n`;
}

// `lightwire doctor`: why a light is not found or drops out (core/doctor). Exit 0 when every expected light and
// static host is healthy, 1 otherwise, so scripts and monitoring can use it.

import { DEFAULT_PROBE_COUNT, formatReport, MAX_PROBE_COUNT, parseExpectedLight, runDoctor } from '../index.js';
import { intValue, usageError, valueError, type FlagSpecs } from './args.js';
import { defineCommand, EXIT } from './command.js';
import { findingFlags, findingFrom, triedList } from './connect.js';

const DOCTOR_FLAGS = {
  json: { type: 'boolean', help: 'print the report as JSON' },
  serial: {
    type: 'string',
    multiple: true,
    value: 'SERIAL[@IP[:PORT]]',
    help: 'a light that must be healthy (repeatable); @IP is where it was last seen:\nif broadcast does not find it, it is asked there by unicast',
  },
  probes: { type: 'string', value: 'N', help: `requests per light to measure round trips and loss (default ${DEFAULT_PROBE_COUNT})` },
  ...findingFlags(true),
} as const satisfies FlagSpecs;

export const doctorCommand = defineCommand({
  name: 'doctor',
  summary: 'explain why lights are missing or drop out (interfaces, port, RTT, loss)',
  usage: 'lightwire doctor [--serial SERIAL[@IP[:PORT]]]... [--probes N] [--json] [finding options]',
  description: `Looks for lights (for --wait-ms, or until the --serial lights and --expect N lights answered), then
measures each light (round trip median and p99, loss, retransmissions) and reports signal, firmware, uptime,
last seen and address changes. Shows the host's IPv4 interfaces with their broadcast addresses (and which
discovery uses) and whether UDP 56700 can be bound or who holds it. For every static host (--light) that did
not answer and every expected light that is missing or silent, names the likely cause: no reply on unicast,
replies to unicast but not broadcast (another VLAN), wrong port, seen on another address, answers discovery
but not requests.`,
  footer: 'Exit codes: 0 every expected light and static host healthy, 1 otherwise, 2 bad options.',
  flags: DOCTOR_FLAGS,
  async run(p, io) {
    if (p.positionals.length > 0) throw usageError(`doctor takes no arguments, got ${p.positionals.map((a) => JSON.stringify(a)).join(' ')}`);
    const finding = findingFrom(p);
    for (const text of p.values.serial) {
      try {
        parseExpectedLight(text, finding.lanPort);
      } catch {
        throw valueError(p.flag('serial'), text, 'not SERIAL or SERIAL@IP[:PORT] (a serial is 12 hex digits)');
      }
    }
    const probeCount = intValue(p, 'probes', 0, MAX_PROBE_COUNT) ?? DEFAULT_PROBE_COUNT;
    const tried = triedList(finding);
    const where = tried.length > 0 ? tried.join(', ') : 'nowhere: no IPv4 interface to broadcast on, and no --light';
    io.stderr(`Looking for lights (${where}) for at most ${finding.waitMs} ms, then measuring ${probeCount} requests per light...\n`);
    const report = await runDoctor({
      ...(finding.broadcasts.length > 0 ? { broadcastAddresses: finding.broadcasts } : {}),
      staticHosts: finding.lights,
      port: finding.lanPort,
      waitMs: finding.waitMs,
      probeCount,
      expect: p.values.serial,
      ...(finding.expect !== undefined ? { expectCount: finding.expect } : {}),
      signal: io.signal,
    });
    io.stdout(p.values.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
    if (io.signal.aborted) {
      io.stderr('Interrupted: measuring stopped early, so the figures are partial.\n');
      return EXIT.FAILURE;
    }
    return report.healthy ? EXIT.OK : EXIT.FAILURE;
  },
});

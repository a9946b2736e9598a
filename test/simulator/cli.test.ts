import { expect } from 'chai';
import { createSocket } from 'node:dgram';
import path from 'node:path';
import { parseSimulateArgs, simulateCommand } from '../../core/cli/simulate.js';
import { captureIO, type CapturedIO } from '../helpers/cli-io.js';
import { BROADCAST, TestClient } from './client.js';
import { until } from '../helpers/wait.js';

const EXAMPLE = path.join(__dirname, '..', '..', 'examples', 'fleet.json');

/** Starts `lightwire simulate` and waits until it printed its control endpoint. */
async function running(args: string[]): Promise<{ io: CapturedIO; done: Promise<number> }> {
  const io = captureIO();
  const done = simulateCommand.run(args, io);
  const deadline = Date.now() + 5000;
  while (!io.out().includes('control endpoint') && Date.now() < deadline) {
    const finished = await Promise.race([done.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 10))]);
    if (finished) break;
  }
  return { io, done };
}

describe('lightwire simulate', () => {
  it('prints its usage for --help and exits 0', async () => {
    const io = captureIO();
    expect(await simulateCommand.run(['--help'], io)).to.equal(0);
    expect(io.out()).to.match(/^Usage: lightwire simulate \(--virtual N \| --fleet FILE\)/);
    expect(io.out()).to.include('--control-port');
  });

  const bad: [string, string[], RegExp][] = [
    ['an unknown flag', ['--virtual', '2', '--colour', 'red'], /^unknown option --colour$/],
    ['a typo of a flag', ['--virtual', '2', '--latncy-ms', '5'], /^unknown option --latncy-ms \(did you mean --latency-ms\?\)$/],
    ['neither --virtual nor --fleet', [], /^give exactly one of --virtual N or --fleet FILE$/],
    ['both --virtual and --fleet', ['--virtual', '2', '--fleet', 'x.json'], /exactly one/],
    ['a light count of zero', ['--virtual', '0'], /^--virtual "0": must be an integer from 1 to 5000$/],
    ['a light count by the old name', ['--lights', 'many'], /^--lights "many": must be an integer from 1 to 5000$/],
    ['an unknown mode', ['--virtual', '2', '--mode', 'mac'], /^--mode "mac": must be ip or port$/],
    ['a base address that is not IPv4', ['--virtual', '2', '--base-address', '127.0.0'], /^--base-address "127\.0\.0": not an IPv4 address/],
    ['a base address beyond loopback', ['--virtual', '2', '--mode', 'port', '--base-address', '0.0.0.0'], /^--base-address "0\.0\.0\.0": not a loopback address/],
    ['a base address of a real interface', ['--virtual', '2', '--base-address', '192.168.1.20'], /^--base-address "192\.168\.1\.20": not a loopback address/],
    ['a port above 65535', ['--virtual', '2', '--lan-port', '70000'], /^--lan-port "70000": must be an integer from 0 to 65535$/],
    ['a port above 65535 by the old name', ['--virtual', '2', '--port', '70000'], /^--port "70000": must be an integer from 0 to 65535$/],
    ['a loss above 1', ['--virtual', '2', '--loss', '1.5'], /^--loss "1\.5": must be a probability from 0 to 1$/],
    ['a negative latency', ['--virtual', '2', '--latency-ms=-5'], /^--latency-ms "-5": must be an integer from 0 to 60000$/],
    ['a flag without its value', ['--virtual'], /^--virtual needs a value: --virtual N$/],
    ['a stray positional argument', ['--virtual', '2', 'extra'], /^simulate takes no arguments, got "extra"$/],
  ];
  for (const [what, args, message] of bad) {
    it(`exits 2 with the message and a pointer to --help for ${what}`, async () => {
      const io = captureIO();
      expect(await simulateCommand.run(args, io)).to.equal(2);
      const lines = io.err().split('\n');
      expect(lines[0]!.replace(/^lightwire simulate: CLI_USAGE: /, '')).to.match(message);
      expect(lines.slice(1)).to.deep.equal(["Run 'lightwire simulate --help' for usage.", '']);
      expect(io.out()).to.equal('');
    });
  }

  it('exits 2 naming the path for an invalid fleet file', async () => {
    const io = captureIO();
    expect(await simulateCommand.run(['--fleet', path.join(__dirname, 'no-such-fleet.json')], io)).to.equal(2);
    expect(io.err()).to.match(/FLEET_INVALID: fleet cannot read .*no-such-fleet\.json: ENOENT/);
  });

  it('parses every flag into typed options', () => {
    expect(parseSimulateArgs(['--fleet', 'f.json', '--mode', 'port', '--base-address', '127.0.0.1', '--lan-port', '0', '--loss', '0.25', '--latency-ms', '30', '--control-port', '0'])).to.deep.equal({
      fleetFile: 'f.json', mode: 'port', baseAddress: '127.0.0.1', port: 0, loss: 0.25, latencyMs: 30, controlPort: 0,
    });
  });

  it('runs N default lights, prints where each lives and its control endpoint, and stops on abort', async () => {
    const baselineUdp = process.getActiveResourcesInfo().filter((r) => r === 'UDPWrap').length;
    const { io, done } = await running(['--virtual', '4', '--lan-port', '0']);
    const out = io.out();
    expect(out).to.match(/^SERIAL\s+LABEL\s+PRODUCT\s+ADDRESS/);
    const port = Number(/127\.255\.255\.255:(\d+)/.exec(out)![1]);
    for (let i = 0; i < 4; i++) expect(out).to.include(`d073d500000${i + 1}`).and.include(`127.0.0.${2 + i}:${port}`);
    expect(out).to.include('LIFX Color');
    const url = /control endpoint: (http:\/\/127\.0\.0\.1:\d+)\/lights/.exec(out)![1]!;
    const client = await TestClient.open();
    try {
      const replies = await client.request('GetService', {}, { address: BROADCAST, port }, { count: 4 });
      expect(replies).to.have.length(4);
      const lights = (await (await fetch(`${url}/lights`)).json()) as { serial: string; received: { total: number } }[];
      expect(lights.map((l) => l.received.total)).to.deep.equal([1, 1, 1, 1]);
    } finally {
      await client.close();
    }
    io.abort();
    expect(await done).to.equal(0);
    // libuv releases a closed UDP handle a moment after the close callback; one left open fails after 1 s.
    await until(() => process.getActiveResourcesInfo().filter((r) => r === 'UDPWrap').length === baselineUdp, { timeoutMs: 1000, what: 'the UDP sockets released' });
    expect(process.getActiveResourcesInfo().filter((r) => r === 'UDPWrap').length).to.equal(baselineUdp);
  });

  it('runs the example fleet in port mode with --loss and --latency-ms applied to every light', async () => {
    const { io, done } = await running(['--fleet', EXAMPLE, '--mode', 'port', '--lan-port', '0', '--loss', '0', '--latency-ms', '20']);
    try {
      const url = /control endpoint: (\S+)\/lights/.exec(io.out())![1]!;
      const lights = (await (await fetch(`${url}/lights`)).json()) as { address: string; port: number; faults: { latencyMs: number; lossProbability: number } }[];
      expect(lights).to.have.length(15);
      expect(new Set(lights.map((l) => l.address))).to.deep.equal(new Set(['127.0.0.1']));
      expect(new Set(lights.map((l) => l.port)).size).to.equal(15);
      expect(lights.every((l) => l.faults.latencyMs === 20 && l.faults.lossProbability === 0)).to.equal(true);
    } finally {
      io.abort();
      expect(await done).to.equal(0);
    }
  });

  it('exits 1 with ADDRESS_IN_USE when the port is taken', async () => {
    const blocker = createSocket({ type: 'udp4' });
    await new Promise<void>((resolve) => blocker.bind({ address: '0.0.0.0', port: 0 }, resolve));
    try {
      const io = captureIO();
      expect(await simulateCommand.run(['--virtual', '2', '--lan-port', String(blocker.address().port)], io)).to.equal(1);
      expect(io.err()).to.match(/ADDRESS_IN_USE/);
    } finally {
      blocker.close();
    }
  });
});

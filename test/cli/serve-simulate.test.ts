// `lightwire serve` and `lightwire simulate` as a user runs them: the messages when they cannot start, and a real
// process stopped by Ctrl-C (SIGINT) or a service manager (SIGTERM): exit 0, nothing on stderr but its own lines,
// and its ports free again.

import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { STOP_GRACE_MS } from '../../core/cli/main.js';
import { listenAdvice, parseServeArgs } from '../../core/cli/serve.js';
import { simulateCommand } from '../../core/cli/simulate.js';
import { defaultFleet, Fleet } from '../../core/simulator/index.js';
import { captureIO } from '../helpers/cli-io.js';
import { until } from '../helpers/wait.js';

const MAIN = path.join(__dirname, '../../core/cli/main.ts');
const NO_SCENES = path.join(__dirname, 'no-such-dir', 'scenes.json');
/** Makes a `lightwire` process's mkdir never return (test/fixtures/preload). */
const STUCK_MKDIR = path.join(__dirname, '../fixtures/preload/stuck-mkdir.cjs');

function listening(port = 0): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () => resolve(server));
  });
}

const closed = (server: Server): Promise<void> => new Promise((resolve) => server.close(() => resolve()));

interface Child {
  readonly out: () => string;
  readonly err: () => string;
  readonly exited: Promise<[number | null, NodeJS.Signals | null]>;
  readonly kill: (signal: NodeJS.Signals) => void;
}

/** `lightwire ARGS` in a process of its own, as a user starts it (no loader from the test runner but tsx). */
function lightwire(args: readonly string[], nodeArgs: readonly string[] = []): Child {
  const env: NodeJS.ProcessEnv = { ...process.env, LIGHTWIRE_SCENES: NO_SCENES };
  delete env.NODE_OPTIONS;
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', MAIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('close', (code, signal) => resolve([code, signal])));
  return { out: () => out, err: () => err, exited, kill: (signal) => child.kill(signal) };
}

function waitFor(child: Child, pattern: RegExp, timeoutMs = 20_000): Promise<RegExpExecArray> {
  return until(() => pattern.exec(child.out()), { timeoutMs, everyMs: 25, what: () => `${pattern}; stdout:\n${child.out()}\nstderr:\n${child.err()}` });
}

/** Resolves within `ms` or fails: a stopped command must not hang. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

describe('lightwire serve and simulate as processes', function () {
  this.timeout(60_000);

  it('serve: a host name that does not resolve is said as such, with the flag to use', () => {
    const options = parseServeArgs(['--host', 'lamp.invalid', '--token', 'a-long-enough-token-1234']);
    if (typeof options === 'string') throw new Error(`parsed as ${options}`);
    for (const code of ['ENOTFOUND', 'EAI_AGAIN']) {
      const advice = listenAdvice(Object.assign(new Error(`getaddrinfo ${code} lamp.invalid`), { code }), options);
      expect(advice, code).to.equal(`lamp.invalid does not resolve to an address (${code}); give one of this machine's addresses (--host 127.0.0.1 for this machine only).`);
    }
  });

  it('simulate: a control port that is taken is a TCP port in use, naming the flag (exit 1), and the lights are let go', async () => {
    const blocker = await listening();
    try {
      const port = (blocker.address() as { port: number }).port;
      const io = captureIO();
      expect(await simulateCommand.run(['--virtual', '1', '--lan-port', '0', '--control-port', String(port)], io)).to.equal(1);
      expect(io.err()).to.equal(`lightwire simulate: ADDRESS_IN_USE: --control-port ${port}: TCP port ${port} on 127.0.0.1 is already in use; give another port, or 0 for any free one\n`);
      expect(io.err()).to.not.contain('UDP');
    } finally {
      await closed(blocker);
    }
  });

  it('exits (1) soon after SIGTERM even when the command is stuck in work it cannot interrupt', async () => {
    // A scene capture whose folder creation never returns (a preload makes mkdir hang and hold the event loop, as
    // Node's recursive mkdir under /proc once did): the process must not outlive a SIGTERM by more than STOP_GRACE_MS.
    const fleet = new Fleet(defaultFleet(1), { port: 0 });
    await fleet.start();
    try {
      const scenes = path.join(os.tmpdir(), `lightwire-stuck-${process.pid}`, 'scenes.json');
      const child = lightwire(['scene', 'capture', 'Stuck', '--broadcast', '127.255.255.255', '--lan-port', String(fleet.port), '--scenes', scenes], ['--require', STUCK_MKDIR]);
      try {
        await until(() => child.err().includes('test preload: mkdir is stuck'), { timeoutMs: 20_000, everyMs: 25, what: () => `the capture stuck in mkdir: ${child.err()}` });
        child.kill('SIGTERM');
        const [code] = await within(child.exited, STOP_GRACE_MS + 3000, 'scene capture after SIGTERM');
        expect(code, child.err()).to.equal(1);
        expect(child.err()).to.match(/still busy 5 s after SIGTERM; exiting without a clean stop/);
        expect(child.err()).to.not.match(/\n\s+at /);
      } finally {
        child.kill('SIGKILL');
      }
    } finally {
      await fleet.stop();
    }
  });

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`serve --virtual: stops on ${signal} with exit 0, no stack trace, and its HTTP port free`, async () => {
      const child = lightwire(['serve', '--virtual', '2', '--port', '0', '--log-level', 'silent']);
      try {
        const port = Number((await waitFor(child, /LIFX HTTP API v1 at http:\/\/127\.0\.0\.1:(\d+)\/v1/))[1]);
        const lights = (await (await fetch(`http://127.0.0.1:${port}/v1/lights/all`)).json()) as unknown[];
        expect(lights).to.have.length(2);
        child.kill(signal);
        expect(await within(child.exited, 10_000, `serve after ${signal}`)).to.deep.equal([0, null]);
        expect(child.err()).to.not.match(/\n\s+at |Error:|Unhandled/);
        await closed(await listening(port));
      } finally {
        child.kill('SIGKILL');
      }
    });

    it(`simulate: stops on ${signal} with exit 0, no stack trace, and its control port free`, async () => {
      const child = lightwire(['simulate', '--virtual', '2', '--lan-port', '0']);
      try {
        const port = Number((await waitFor(child, /control endpoint: http:\/\/127\.0\.0\.1:(\d+)\/lights/))[1]);
        expect((await fetch(`http://127.0.0.1:${port}/lights`)).status).to.equal(200);
        child.kill(signal);
        expect(await within(child.exited, 10_000, `simulate after ${signal}`)).to.deep.equal([0, null]);
        expect(child.err()).to.not.match(/\n\s+at |Error:|Unhandled/);
        await closed(await listening(port));
      } finally {
        child.kill('SIGKILL');
      }
    });
  }
});

import { expect } from 'chai';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { COMMANDS } from '../../core/cli/commands.js';
import { curlLine, parseServeArgs, serveCommand } from '../../core/cli/serve.js';
import { isLightwireError } from '../../core/errors.js';
import { captureIO, type CapturedIO } from '../helpers/cli-io.js';

const run = promisify(execFile);
const FIXTURES = path.join(__dirname, 'fixtures');
const NO_SCENES = path.join(FIXTURES, 'no-such-scenes.json');

/** Starts `lightwire serve ARGS` in this process and waits for its banner. */
async function serve(args: string[]): Promise<{ io: CapturedIO; done: Promise<number>; url: string; curl: string }> {
  const io = captureIO();
  // Never the user's own scene file.
  const done = serveCommand.run(args.includes('--scenes') ? args : [...args, '--scenes', NO_SCENES], io);
  const end = Date.now() + 15_000;
  while (!/^try: .*$/m.test(io.out())) {
    if (Date.now() > end) throw new Error(`serve did not start: ${io.err()}`);
    const early = await Promise.race([done, new Promise<null>((r) => setTimeout(() => r(null), 20))]);
    if (early !== null) throw new Error(`serve exited with ${early}: ${io.err()}`);
  }
  const url = /LIFX HTTP API v1 at (\S+)/.exec(io.out())![1]!;
  const curl = /^try: (.*)$/m.exec(io.out())![1]!;
  return { io, done, url, curl };
}

/** Runs a printed curl line (it only ever names 127.0.0.1). */
async function curl(line: string): Promise<string> {
  const args = [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!).slice(1);
  const { stdout } = await run('curl', ['-s', '--max-time', '5', ...args]);
  return stdout;
}

describe('lightwire serve', function () {
  this.timeout(30_000);

  it('is a registered command', () => {
    expect(COMMANDS.map((c) => c.name)).to.include('serve');
  });

  it('runs virtual lights in the process, prints the URL and a curl line that works, and stops on the signal', async () => {
    const s = await serve(['--virtual', '3', '--port', '0']);
    expect(s.url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(s.io.out()).to.include('(3 virtual lights on loopback)');
    expect(s.curl).to.equal(`curl ${s.url}/lights/all`);
    const lights = JSON.parse(await curl(s.curl)) as { id: string }[];
    expect(lights.map((l) => l.id)).to.have.members(['d073d5000001', 'd073d5000002', 'd073d5000003']);
    s.io.abort();
    expect(await s.done).to.equal(0);
    const after = await fetch(`${s.url}/lights/all`).then(() => 'answered', () => 'closed');
    expect(after).to.equal('closed');
  });

  it('puts the token in the curl line when one is set, and refuses requests without it', async () => {
    const s = await serve(['--virtual', '2', '--port', '0', '--token', 'tok3n:control', '--rate-limit', '100']);
    try {
      expect(s.curl).to.equal(`curl -H "Authorization: Bearer tok3n" ${s.url}/lights/all`);
      expect((JSON.parse(await curl(s.curl)) as unknown[]).length).to.equal(2);
      const denied = await fetch(`${s.url}/lights/all`);
      expect(denied.status).to.equal(401);
      expect(denied.headers.get('x-ratelimit-limit')).to.equal('100');
    } finally {
      s.io.abort();
      expect(await s.done).to.equal(0);
    }
  });

  it('serves HTTPS with --tls-cert/--tls-key, prints a curl -k line, and answers 426 on --http-port', async () => {
    const s = await serve([
      '--virtual', '1', '--port', '0', '--tls-cert', path.join(FIXTURES, 'test-cert.pem'), '--tls-key', path.join(FIXTURES, 'test-key.pem'), '--http-port', '0',
    ]);
    try {
      expect(s.url).to.match(/^https:\/\//);
      expect(s.curl).to.equal(`curl -k ${s.url}/lights/all`);
      expect((JSON.parse(await curl(s.curl)) as unknown[]).length).to.equal(1);
      const plainUrl = /plain HTTP at (\S+) answers 426/.exec(s.io.out())![1]!;
      expect((await fetch(`${plainUrl}/lights/all`)).status).to.equal(426);
    } finally {
      s.io.abort();
      await s.done;
    }
  });

  it('refuses to listen beyond loopback without a token and says why (exit 2)', async () => {
    const io = captureIO();
    expect(await serveCommand.run(['--host', '0.0.0.0', '--virtual', '1', '--scenes', NO_SCENES], io)).to.equal(2);
    expect(io.err()).to.include('lightwire serve: SERVE_UNSAFE_BIND: refusing to listen on 0.0.0.0 without a token');
    expect(io.err()).to.include('Give --token T');
    expect(io.out()).to.equal('');
  });

  it('rejects bad flags with exit 2 and a message', async () => {
    for (const args of [['--port', 'x'], ['--virtual', '0'], ['--virtual', '2', '--fleet', 'f.json'], ['--tls-cert', 'a.pem'], ['--virtual', '1', '--light', '127.0.0.2'], ['--token', 'a b'], ['--rate-limit', '0'], ['--bogus']]) {
      const io = captureIO();
      expect(await serveCommand.run(args, io), args.join(' ')).to.equal(2);
      expect(io.err(), args.join(' ')).to.match(/^lightwire serve: /);
    }
  });

  it('exits 1 when the port is taken', async () => {
    const first = await serve(['--virtual', '1', '--port', '0']);
    try {
      const port = new URL(first.url).port;
      const io = captureIO();
      expect(await serveCommand.run(['--virtual', '1', '--port', port, '--scenes', NO_SCENES], io)).to.equal(1);
      expect(io.err()).to.match(/EADDRINUSE/);
    } finally {
      first.io.abort();
      await first.done;
    }
  });

  it('parses flags into options, tokens from $LIGHTWIRE_TOKENS included', () => {
    const options = parseServeArgs(['--port', '8080', '--token', 'a:read', '--broadcast', '127.255.255.255', '--light', '127.0.0.2:56700'], { LIGHTWIRE_TOKENS: 'b  c:control' });
    expect(options).to.deep.include({ host: '127.0.0.1', port: 8080, tokens: ['a:read', 'b', 'c:control'], rateLimit: null, broadcasts: ['127.255.255.255'], lights: ['127.0.0.2:56700'], lanPort: 56700 });
    expect(parseServeArgs(['--help'])).to.equal('help');
    let err: unknown;
    try {
      parseServeArgs(['--host', '::'], {});
    } catch (e) {
      err = e;
    }
    expect(isLightwireError(err, 'SERVE_UNSAFE_BIND')).to.equal(true);
    expect(() => parseServeArgs(['--host', '::'], { LIGHTWIRE_TOKENS: 't' })).to.not.throw();
  });

  it('builds curl lines with and without token and TLS', () => {
    expect(curlLine('http://127.0.0.1:3000/v1', undefined, false)).to.equal('curl http://127.0.0.1:3000/v1/lights/all');
    expect(curlLine('https://127.0.0.1:3000/v1', 'T', true)).to.equal('curl -k -H "Authorization: Bearer T" https://127.0.0.1:3000/v1/lights/all');
  });
});

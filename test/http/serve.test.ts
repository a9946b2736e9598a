import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { COMMANDS } from '../../core/cli/commands.js';
import { curlLine, listenAdvice, parseServeArgs, serveCommand, textLogLine } from '../../core/cli/serve.js';
import { isLightwireError } from '../../core/errors.js';
import { captureIO, type CapturedIO } from '../helpers/cli-io.js';
import { turns, until } from '../helpers/wait.js';

const run = promisify(execFile);
const FIXTURES = path.join(__dirname, 'fixtures');
const NO_SCENES = path.join(FIXTURES, 'no-such-scenes.json');

/** Starts `lightwire serve ARGS` in this process and waits for its banner. */
async function serve(args: string[]): Promise<{ io: CapturedIO; done: Promise<number>; url: string; curl: string }> {
  const io = captureIO();
  // Never the user's own scene file.
  const done = serveCommand.run(args.includes('--scenes') ? args : [...args, '--scenes', NO_SCENES], io);
  let exited: number | null = null;
  void done.then((code) => (exited = code));
  await until(
    () => {
      if (exited !== null) throw new Error(`serve exited with ${exited}: ${io.err()}`);
      return /^try: .*$/m.test(io.out());
    },
    { timeoutMs: 15_000, what: () => `serve to start: ${io.err()}` },
  );
  const url = /LIFX HTTP API v1 at (\S+)/.exec(io.out())![1]!;
  const curl = /^try: (.*)$/m.exec(io.out())![1]!;
  return { io, done, url, curl };
}

/** This process's UDP sockets (Linux): inode -> local IPv4 address, from /proc/self/fd and /proc/net/udp. */
function udpSockets(): Map<string, string> {
  const mine = new Set<string>();
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`));
      if (m) mine.add(m[1]!);
    } catch {
      // closed while listing
    }
  }
  const out = new Map<string, string>();
  for (const line of readFileSync('/proc/net/udp', 'utf8').trim().split('\n').slice(1)) {
    const cols = line.trim().split(/\s+/);
    const inode = cols[9]!;
    if (!mine.has(inode)) continue;
    const hex = cols[1]!.split(':')[0]!;
    const bytes = [6, 4, 2, 0].map((i) => parseInt(hex.slice(i, i + 2), 16));
    out.set(inode, bytes.join('.'));
  }
  return out;
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

  it('keeps virtual lights and the client that talks to them on loopback: no UDP socket of its own on 0.0.0.0', async () => {
    const before = udpSockets();
    const s = await serve(['--virtual', '3', '--port', '0']);
    try {
      const opened = [...udpSockets()].filter(([inode]) => !before.has(inode)).map(([, local]) => local);
      // Three lights, the shared discovery listener and the client: five sockets, every one on 127.0.0.0/8.
      expect(opened.length).to.be.at.least(5);
      for (const local of opened) expect(local, opened.join(', ')).to.match(/^127\./);
      expect(opened).to.include(`127.255.255.255`);
    } finally {
      s.io.abort();
      await s.done;
    }
  });

  it('prints the dashboard: the page on an open server, a one-time sign-in link with a token', async () => {
    const open = await serve(['--virtual', '1', '--port', '0']);
    try {
      const page = /^dashboard: (\S+)$/m.exec(open.io.out())?.[1];
      expect(page).to.equal(open.url.replace(/\/v1$/, '/'));
      const html = await fetch(page!).then((r) => r.text());
      expect(html).to.match(/<html/i);
    } finally {
      open.io.abort();
      await open.done;
    }
    const guarded = await serve(['--virtual', '1', '--port', '0', '--token', 'sekrit']);
    try {
      const link = /^dashboard: (\S+)$/m.exec(guarded.io.out())?.[1];
      expect(link).to.be.a('string');
      expect(link).to.not.equal(guarded.url.replace(/\/v1$/, '/'));
      expect(link).to.not.include('sekrit');
    } finally {
      guarded.io.abort();
      await guarded.done;
    }
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

  it('rejects bad flags with exit 2, the message naming the flag, and one line pointing to --help', async () => {
    const cases: [string[], RegExp][] = [
      [['--port', 'x'], /^--port "x": must be an integer from 0 to 65535$/],
      [['--virtual', '0'], /^--virtual "0": must be an integer from 1 to 5000$/],
      [['--virtual', '2', '--fleet', 'f.json'], /^give --virtual N or --fleet FILE, not both$/],
      [['--tls-cert', 'a.pem'], /^give both --tls-cert and --tls-key, or neither$/],
      [['--virtual', '1', '--light', '127.0.0.2'], /^--virtual runs its own lights on loopback; --light finds real ones$/],
      [['--light', 'lamp'], /^--light "lamp": not an IPv4 address with an optional :PORT/],
      [['--broadcast', '10.0.0'], /^--broadcast "10\.0\.0": not an IPv4 address/],
      [['--lan-port', '0'], /^--lan-port "0": must be an integer from 1 to 65535$/],
      [['--token', 'a b'], /^--token "a b": /],
      [['--rate-limit', '0'], /^--rate-limit "0": must be an integer from 1 to 1000000$/],
      [['--log-level', 'verbose'], /^--log-level "verbose": must be fatal, error, warn, info, debug, trace or silent$/],
      [['--log-level', 'wran'], /^--log-level "wran": must be .* \(did you mean warn\?\)$/],
      [['--log-format', 'xml'], /^--log-format "xml": must be text or json$/],
      [['--bogus'], /^unknown option --bogus$/],
      [['--virtal', '2'], /^unknown option --virtal \(did you mean --virtual\?\)$/],
      [['--discover-ms', 'x'], /^--discover-ms "x": must be an integer from 0 to 600000$/],
    ];
    for (const [args, message] of cases) {
      const io = captureIO();
      expect(await serveCommand.run([...args, '--scenes', NO_SCENES], io), args.join(' ')).to.equal(2);
      const lines = io.err().split('\n');
      expect(lines[0], args.join(' ')).to.match(/^lightwire serve: CLI_USAGE: /);
      expect(lines[0]!.replace(/^lightwire serve: CLI_USAGE: /, ''), args.join(' ')).to.match(message);
      expect(lines.slice(1), args.join(' ')).to.deep.equal(["Run 'lightwire serve --help' for usage.", '']);
      expect(io.out()).to.equal('');
    }
  });

  it('names the TLS file flag when the file cannot be read', async () => {
    const io = captureIO();
    expect(await serveCommand.run(['--virtual', '1', '--tls-cert', path.join(FIXTURES, 'no-such.pem'), '--tls-key', path.join(FIXTURES, 'test-key.pem'), '--scenes', NO_SCENES], io)).to.equal(2);
    expect(io.err()).to.match(/^lightwire serve: CLI_USAGE: --tls-cert ".*no-such\.pem": ENOENT/);
  });

  it('checks the certificate and key before looking for lights: not PEM, or not a pair, is exit 2 naming the flag', async () => {
    const cert = path.join(FIXTURES, 'test-cert.pem');
    const key = path.join(FIXTURES, 'test-key.pem');
    for (const [args, message] of [
      [['--tls-cert', key, '--tls-key', key], /^lightwire serve: CLI_USAGE: --tls-cert ".*test-key\.pem": not a PEM certificate TLS can use/],
      [['--tls-cert', cert, '--tls-key', cert], /^lightwire serve: CLI_USAGE: --tls-key ".*test-cert\.pem": not a PEM private key TLS can use/],
      [['--tls-cert', cert, '--tls-key', path.join(FIXTURES, 'other-key.pem')], /^lightwire serve: CLI_USAGE: --tls-key ".*other-key\.pem": does not belong to the certificate/],
    ] as const) {
      const io = captureIO();
      const t0 = performance.now();
      // A minute to look for lights: refused long before that.
      expect(await serveCommand.run(['--wait-ms', '60000', '--broadcast', '127.255.255.255', ...args, '--scenes', NO_SCENES], io)).to.equal(2);
      expect(performance.now() - t0).to.be.below(5000);
      expect(io.err()).to.match(message);
      expect(io.err()).to.not.contain('Looking for');
    }
  });

  it('logs one line per request on stderr, at the level given', async () => {
    const s = await serve(['--virtual', '1', '--port', '0']);
    try {
      expect((await fetch(`${s.url}/lights/all`)).status).to.equal(200);
      expect((await fetch(`${s.url}/lights/label:Nobody`)).status).to.equal(404);
      await until(() => /GET \/v1\/lights\/label:Nobody 404/.test(s.io.err()));
      const lines = s.io.err().split('\n').filter((l) => / GET \/v1\//.test(l));
      expect(lines).to.have.length(2);
      expect(lines[0]).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z INFO  GET \/v1\/lights\/all 200 \d+\.\dms$/);
      expect(lines[1]).to.match(/INFO  GET \/v1\/lights\/label:Nobody 404 /);
    } finally {
      s.io.abort();
      await s.done;
    }

    const quiet = await serve(['--virtual', '1', '--port', '0', '--log-level', 'warn']);
    try {
      const res = await fetch(`${quiet.url}/lights/all`);
      expect(res.status).to.equal(200);
      // No access line at warn: Fastify writes it when the response has finished (this process serves it), so by the
      // time the body is read and the loop has gone round, a line would be there.
      await res.text();
      await turns();
      expect(quiet.io.err()).to.not.match(/ GET \/v1\//);
    } finally {
      quiet.io.abort();
      await quiet.done;
    }

    const json = await serve(['--virtual', '1', '--port', '0', '--log-format', 'json', '--log-level', 'debug']);
    try {
      expect((await fetch(`${json.url}/lights/all`)).status).to.equal(200);
      await until(() => json.io.err().includes('"statusCode":200'));
      const records = json.io.err().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { level: number; msg: string; statusCode?: number; url?: string });
      expect(records.find((r) => r.msg === 'incoming request')?.level).to.equal(20);
      const done = records.find((r) => r.statusCode === 200)!;
      expect(done).to.include({ level: 30, url: '/v1/lights/all', msg: done.msg });
      expect(done.msg).to.match(/^GET \/v1\/lights\/all 200 /);
    } finally {
      json.io.abort();
      await json.done;
    }
  });

  it('formats pino lines as text', () => {
    expect(textLogLine('{"level":50,"time":0,"msg":"boom","err":{"message":"bad"}}')).to.equal('1970-01-01T00:00:00.000Z ERROR boom: bad\n');
    expect(textLogLine('{"level":20,"time":0,"msg":"incoming request","req":{"method":"GET","url":"/v1/x"}}')).to.equal('1970-01-01T00:00:00.000Z DEBUG incoming request GET /v1/x\n');
    expect(textLogLine('not json')).to.equal('not json\n');
  });

  it('says what to do when the port is taken (exit 1)', async () => {
    const first = await serve(['--virtual', '1', '--port', '0']);
    try {
      const port = new URL(first.url).port;
      const io = captureIO();
      expect(await serveCommand.run(['--virtual', '1', '--port', port, '--scenes', NO_SCENES], io)).to.equal(1);
      // Said at once: before any light is looked for (that would cost a discovery round first).
      expect(io.err()).to.match(/^lightwire serve: EADDRINUSE: port /);
      expect(io.err()).to.contain(
        `lightwire serve: EADDRINUSE: port ${port} on 127.0.0.1 is already in use (another lightwire serve, or another server).\n` +
          'Stop the other process, or give another port: --port N (--port 0 picks a free one).\n',
      );
      expect(io.out()).to.equal('');
    } finally {
      first.io.abort();
      await first.done;
    }
  });

  it('names --http-port when the 426 listener\'s port is the one taken', () => {
    const options = parseServeArgs(['--tls-cert', 'c.pem', '--tls-key', 'k.pem', '--http-port', '3080'], {});
    if (typeof options === 'string') throw new Error('parsed as help');
    const advice = listenAdvice(Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE', port: 3080, address: '127.0.0.1' }), options);
    expect(advice).to.contain('give another port: --http-port N');
    expect(listenAdvice(new Error('other'), options)).to.equal(null);
  });

  it('parses flags into options, tokens from $LIGHTWIRE_TOKENS included', () => {
    const options = parseServeArgs(['--port', '8080', '--token', 'a:read', '--broadcast', '127.255.255.255', '--light', '127.0.0.2:56700', '--wait-ms', '500', '--expect', '2'], { LIGHTWIRE_TOKENS: 'b  c:control' });
    expect(options).to.deep.include({ host: '127.0.0.1', port: 8080, tokens: ['a:read', 'b', 'c:control'], rateLimit: null, logLevel: 'info', logFormat: 'text' });
    expect(options).to.have.property('finding').that.deep.equals({ broadcasts: ['127.255.255.255'], lights: ['127.0.0.2:56700'], lanPort: 56700, waitMs: 500, expect: 2 });
    expect(parseServeArgs(['--help'])).to.equal('help');
    expect(parseServeArgs(['--version'])).to.equal('version');
    let err: unknown;
    try {
      parseServeArgs(['--host', '::'], {});
    } catch (e) {
      err = e;
    }
    expect(isLightwireError(err, 'SERVE_UNSAFE_BIND')).to.equal(true);
    expect(() => parseServeArgs(['--host', '::'], { LIGHTWIRE_TOKENS: '0123456789abcdef' })).to.not.throw();
    expect(() => parseServeArgs(['--host', '::'], { LIGHTWIRE_TOKENS: 't' })).to.throw(/SERVE_WEAK_TOKEN|shorter than 16 characters/);
    expect(() => parseServeArgs(['--host', '300.1.1.1'], {})).to.throw(/--host "300\.1\.1\.1": is not an IPv4 address/);
  });

  it('builds curl lines with and without token and TLS', () => {
    expect(curlLine('http://127.0.0.1:3000/v1', undefined, false)).to.equal('curl http://127.0.0.1:3000/v1/lights/all');
    expect(curlLine('https://127.0.0.1:3000/v1', 'T', true)).to.equal('curl -k -H "Authorization: Bearer T" https://127.0.0.1:3000/v1/lights/all');
  });
});

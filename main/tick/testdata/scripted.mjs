#!/usr/bin/env node
// A Tick for tests: well behaved until told otherwise. `node scripted.mjs <scenario>`
// picks one misbehaviour (one per violation and per request-level failure of Tick
// protocol 3, 3.6), played when the host calls the tool `go`. Other tools: `poke`
// (mutates, emits an update), `slow` (answers after args.ms), `flood` (emits args.count
// updates, then answers), `history` (the recover_with tool), `stats` (the most calls it
// ever had running at once).
import fs from 'node:fs';
import readline from 'node:readline';
import tty from 'node:tty';

const scenario = process.argv[2] ?? 'good';
let revision = process.argv[3] ?? '1';
let seq = 0;
let n = 0;
let running = 0;
let maxRunning = 0;

// The view, when there is one: size and environment go into state; SIGWINCH is an update.
let view;
try {
  view = new tty.WriteStream(fs.openSync('/dev/tty', 'r+'));
  view.write('scripted Tick: ' + scenario + '\r\n');
} catch {
  view = undefined;
}
const env = { instance: process.env.TICKLOOP_INSTANCE_ID ?? null, term: process.env.TERM, colorterm: process.env.COLORTERM, internal: Object.keys(process.env).filter((k) => k.startsWith('TICKLOOP_') && k !== 'TICKLOOP_INSTANCE_ID') };
// Process group, session and the terminal's foreground group, from /proc (Linux).
const proc = () => {
  try {
    const f = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return { pgrp: Number(f[2]), session: Number(f[3]), tpgid: Number(f[5]) };
  } catch {
    return null;
  }
};
const data = () => {
  if (!view) return { n };
  view._refreshSize?.(); // a WriteStream on /dev/tty does not refresh its size by itself
  const [cols, rows] = view.getWindowSize();
  return { n, cols, rows, env, stderrIsTty: process.stderr.isTTY === true, proc: proc() };
};
if (view) process.on('SIGWINCH', () => update());
if (scenario === 'stubborn' || scenario === 'sticky') process.on('SIGTERM', () => {}); // only SIGKILL ends it
if (scenario === 'stdout-noise') fs.writeSync(1, 'debug: starting up\n');
if (scenario === 'describe-bad-schema') process.stderr.write('scripted: about to send a bad schema\n');

const w = (s) => fs.writeSync(1, s);
const send = (frame) => w(JSON.stringify({ jsonrpc: '2.0', ...frame }) + '\n');
const update = () => send({ method: 'tick/update', params: { seq: ++seq, data: data() } });

const descriptor = () => ({
  protocol: scenario === 'protocol-2' ? 2 : 3,
  kind: 'test.scripted',
  title: 'Scripted',
  description: 'A Tick that misbehaves on purpose.',
  revision,
  tools: [
    { name: 'go', description: 'Play the scenario.', input_schema: { type: 'object' }, mutates: false },
    { name: 'poke', description: 'Add n.', input_schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] }, mutates: true },
    { name: 'slow', description: 'Answer after ms.', input_schema: { type: 'object', properties: { ms: { type: 'integer' } } }, mutates: false },
    { name: 'slowpoke', description: 'Mutate after ms.', input_schema: { type: 'object', properties: { ms: { type: 'integer' } } }, mutates: true },
    { name: 'flood', description: 'Emit count updates.', input_schema: { type: 'object', properties: { count: { type: 'integer' } } }, mutates: false },
    { name: 'stream', description: 'Emit count updates in batches.', input_schema: { type: 'object', properties: { count: { type: 'integer' }, batch: { type: 'integer' } } }, mutates: false },
    { name: 'history', description: 'Nothing to recover.', input_schema: { type: 'object' }, mutates: false },
    { name: 'stats', description: 'Concurrency seen.', input_schema: { type: 'object' }, mutates: false },
    { name: 'bump_revision', description: 'Change the catalog.', input_schema: { type: 'object' }, mutates: true },
  ],
  recover_with: 'history',
  state: { series: [{ path: '/items', newest: 'last' }] },
});

function play(id) {
  switch (scenario) {
    case 'not-json': return w('this is not json\n');
    case 'bad-jsonrpc': return w(JSON.stringify({ jsonrpc: '1.0', id, result: {} }) + '\n');
    case 'no-id-no-method': return w(JSON.stringify({ jsonrpc: '2.0', result: {} }) + '\n');
    case 'null-id': return w(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'x' } }) + '\n');
    case 'string-id': return w(JSON.stringify({ jsonrpc: '2.0', id: String(id), result: {} }) + '\n');
    case 'no-newline': w(JSON.stringify({ jsonrpc: '2.0', id, result: {} })); return process.exit(0);
    case 'long-line': {
      const chunk = 'x'.repeat(1 << 20);
      for (let i = 0; i < 9; i++) w(chunk);
      return w('\n');
    }
    case 'update-null-data': return send({ method: 'tick/update', params: { seq: seq + 1, data: null } });
    case 'update-seq-repeat': return send({ method: 'tick/update', params: { seq, data: { n } } });
    case 'update-bad-at': return send({ method: 'tick/update', params: { seq: seq + 1, data: { n }, at: 'yesterday' } });
    case 'update-too-big': return send({ method: 'tick/update', params: { seq: seq + 1, data: { s: 'y'.repeat(600 * 1024) } } });
    case 'both': return send({ id, result: {}, error: { code: -32000, message: 'both' } });
    case 'neither': return send({ id });
    case 'result-too-big': return w(`{"jsonrpc":"2.0","id":${id},"result":[${new Array(600_000).fill('1e15').join(',')}]}\n`);
    case 'exit': return process.exit(3);
    case 'noise': {
      send({ method: 'tick/log', params: { text: 'hello' } });
      send({ id: 999, method: 'host/do', params: {} });
      send({ id: 4242, result: 'nobody asked' });
      return send({ id, result: { ok: true } });
    }
    case 'fail-32000': return send({ id, error: { code: -32000, message: 'broke halfway' } });
    case 'fail-32001': return send({ id, error: { code: -32001, message: 'busy' } });
    case 'fail-32603': return send({ id, error: { code: -32603, message: 'internal' } });
    case 'fail-malformed': return send({ id, error: 'nope' });
    case 'silent': return; // never answers
    default: return send({ id, result: { ok: true } });
  }
}

function handle(req) {
  const { id, method } = req;
  const params = req.params ?? {};
  if (method === 'tick/describe') {
    if (scenario === 'describe-slow') return setTimeout(() => send({ id, result: descriptor() }), 60_000);
    if (scenario === 'stubborn' || scenario === 'sticky') process.on('SIGTERM', () => {}); // only SIGKILL ends it
if (scenario === 'stdout-noise') fs.writeSync(1, 'debug: starting up\n');
if (scenario === 'describe-bad-schema') {
      const d = descriptor();
      d.tools[0].input_schema = { type: 'bogus' };
      return send({ id, result: d });
    }
    return send({ id, result: descriptor() });
  }
  if (method === 'tick/read') {
    if (scenario === 'read-below-floor' && seq > 0) return send({ id, result: { seq: 0, data: { n } } });
    if (scenario === 'read-side-effect') { n++; seq++; }
    if (scenario === 'read-bad-at') return send({ id, result: { seq, data: { n }, at: '2026-13-01T00:00:00Z' } });
    return send({ id, result: { seq, data: data() } });
  }
  if (method !== 'tick/call') return send({ id, error: { code: -32601, message: 'unknown method' } });
  if (params.revision !== revision) return send({ id, error: { code: -32004, message: 'the Tick Tool catalog changed; describe the Tick and prepare the call again' } });
  const args = params.args ?? {};
  switch (params.tool) {
    case 'go': return play(id);
    case 'poke': n += args.n; update(); return send({ id, result: { n } });
    case 'slow':
    case 'slowpoke': {
      running++;
      maxRunning = Math.max(maxRunning, running);
      return setTimeout(() => {
        running--;
        if (params.tool === 'slowpoke') { n += 1; update(); }
        send({ id, result: { ms: args.ms } });
      }, args.ms ?? 0);
    }
    case 'flood': {
      for (let i = 0; i < (args.count ?? 0); i++) { n++; update(); }
      return send({ id, result: { seq } });
    }
    case 'stream': {
      // count updates in batches, yielding between batches so requests are answered meanwhile.
      let left = args.count ?? 0;
      const batch = args.batch ?? 100;
      const next = () => {
        for (let i = 0; i < batch && left > 0; i++, left--) { n++; update(); }
        if (left > 0) setImmediate(next);
        else send({ id, result: { seq } });
      };
      return next();
    }
    case 'history': return send({ id, result: { changes: [] } });
    case 'stats': return send({ id, result: { maxRunning } });
    case 'bump_revision': revision = String(Number(revision) + 1); return send({ id, result: { revision } });
    default: return send({ id, error: { code: -32602, message: 'unknown tool' } });
  }
}

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on('line', (line) => {
  let req;
  try { req = JSON.parse(line); } catch { return; }
  if (!req || !Number.isSafeInteger(req.id)) return;
  handle(req);
});
rl.on('close', () => {
  if (scenario === 'sticky') setInterval(() => {}, 1000); // ignores stdin EOF
  else process.exit(0);
});

#!/usr/bin/env node
// The Appendix A counter of Tick protocol 3 (Node standard library only). One value,
// changed by the `increment` tool or by a person typing + or - in the Tick's view; the
// last changes are in state (`recent`, a declared series) and in `history`.
// Run it under the host: terminal-delight tick check -- node assets/ticks/counter/counter.mjs
import fs from 'node:fs';
import readline from 'node:readline';
import tty from 'node:tty';

const REVISION = '1';
const DESCRIPTOR = {
  protocol: 3,
  kind: 'example.counter',
  title: 'Counter',
  description: 'Keyboard and tool calls share one value.',
  revision: REVISION,
  tools: [
    {
      name: 'increment',
      description: 'Add an integer to the counter.',
      input_schema: { type: 'object', properties: { amount: { type: 'integer' } }, required: ['amount'], additionalProperties: false },
      mutates: true,
    },
    {
      name: 'history',
      description: 'Read the last 256 changes.',
      input_schema: { type: 'object', additionalProperties: false },
      mutates: false,
    },
  ],
  recover_with: 'history',
  state: { series: [{ path: '/recent', newest: 'last' }] },
};

let seq = 0;
let value = 0;
const changes = []; // the last 256 changes, oldest first
const RECENT = 16;

function send(frame) {
  // One complete line per message, written synchronously so messages never interleave.
  fs.writeSync(1, JSON.stringify({ jsonrpc: '2.0', ...frame }) + '\n');
}

function change(amount) {
  seq += 1;
  value += amount;
  changes.push({ seq, value });
  if (changes.length > 256) changes.shift();
  send({ method: 'tick/update', params: { seq, data: state() } });
  draw();
}

function state() {
  return { value, recent: changes.slice(-RECENT) };
}

function handle(method, params) {
  if (method === 'tick/describe') return DESCRIPTOR;
  if (method === 'tick/read') return { seq, data: state() };
  if (method === 'tick/call') {
    if (params.revision !== REVISION) throw { code: -32004, message: 'the Tick Tool catalog changed; describe the Tick and prepare the call again' };
    const args = params.args;
    if (params.tool === 'increment') {
      if (typeof args !== 'object' || args === null || !Number.isSafeInteger(args.amount) || Object.keys(args).length !== 1) {
        throw { code: -32602, message: 'increment takes {"amount": <integer>}' };
      }
      change(args.amount);
      return { value };
    }
    if (params.tool === 'history') {
      if (typeof args !== 'object' || args === null || Object.keys(args).length !== 0) throw { code: -32602, message: 'history takes no arguments' };
      return { changes };
    }
    throw { code: -32602, message: `unknown tool ${JSON.stringify(params.tool)}` };
  }
  throw { code: -32601, message: `unknown method ${method}` };
}

// ── the view: /dev/tty, when there is one ──
let out;
try {
  const fd = fs.openSync('/dev/tty', 'r+');
  out = new tty.WriteStream(fd);
  const input = new tty.ReadStream(fs.openSync('/dev/tty', 'r'));
  input.setRawMode(true);
  input.on('data', (buf) => {
    for (const ch of buf.toString('utf8')) {
      if (ch === '+') change(1);
      else if (ch === '-') change(-1);
    }
  });
  input.unref();
} catch {
  out = undefined; // no terminal (run directly with pipes): no view
}

function draw() {
  if (!out) return;
  out._refreshSize?.(); // a WriteStream on /dev/tty does not refresh its size by itself
  const cols = out.columns || 120;
  const lines = [`Counter  ${value}`, '', 'Press + or - to change the value.', `seq ${seq} · ${changes.length} changes`];
  out.write('\x1b[H\x1b[2J' + lines.map((l) => l.slice(0, cols)).join('\r\n'));
}
if (out) process.on('SIGWINCH', draw);
draw();

// ── the protocol: standard input ──
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on('line', (line) => {
  let request;
  try {
    request = JSON.parse(line);
  } catch {
    return; // unparseable: discard without replying
  }
  if (typeof request !== 'object' || request === null || !Number.isSafeInteger(request.id) || typeof request.method !== 'string') return;
  try {
    send({ id: request.id, result: handle(request.method, request.params ?? {}) });
  } catch (error) {
    const code = Number.isSafeInteger(error?.code) ? error.code : -32603;
    send({ id: request.id, error: { code, message: String(error?.message ?? error) } });
  }
});
rl.on('close', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));

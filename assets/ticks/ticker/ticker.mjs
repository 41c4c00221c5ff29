#!/usr/bin/env node
// A richer sample Tick (Node standard library only): a simulated price ticker. A new
// price every TICKER_INTERVAL_MS (default 1000); state holds the last 32 points as a
// declared series (newest last), and `history` (the recover_with tool) returns up to the
// last 1,000. Alerts are set by tools (which need a person's approval: they mutate) or
// from the keyboard in the view: space pauses, a sets an alert 1% above the price.
// The prices are made up (a seeded random walk); nothing leaves the machine.
import fs from 'node:fs';
import readline from 'node:readline';
import tty from 'node:tty';

const INTERVAL = Math.max(50, Number(process.env.TICKER_INTERVAL_MS) || 1000);
const SYMBOL = process.env.TICKER_SYMBOL || 'DEMO';
const REVISION = 'ticker-1';
const KEEP = 1000;
const IN_STATE = 32;

const DESCRIPTOR = {
  protocol: 3,
  kind: 'example.ticker',
  title: `Ticker ${SYMBOL}`,
  description: 'A simulated price with a live series of recent points, and price alerts.',
  revision: REVISION,
  tools: [
    {
      name: 'history',
      description: 'Price points, oldest first: all kept (up to 1,000), or those after a seq.',
      input_schema: { type: 'object', properties: { after_seq: { type: 'integer', minimum: 0 }, limit: { type: 'integer', minimum: 1, maximum: 1000 } }, additionalProperties: false },
      mutates: false,
    },
    {
      name: 'set_alert',
      description: 'Add an alert that fires when the price crosses a level.',
      input_schema: { type: 'object', properties: { above: { type: 'number' }, below: { type: 'number' } }, minProperties: 1, additionalProperties: false },
      mutates: true,
    },
    {
      name: 'clear_alerts',
      description: 'Remove every alert.',
      input_schema: { type: 'object', additionalProperties: false },
      mutates: true,
    },
    {
      name: 'pause',
      description: 'Pause or resume the feed.',
      input_schema: { type: 'object', properties: { paused: { type: 'boolean' } }, required: ['paused'], additionalProperties: false },
      mutates: true,
    },
  ],
  recover_with: 'history',
  state: { series: [{ path: '/points', newest: 'last' }, { path: '/fired', newest: 'last' }] },
};

let seq = 0;
let paused = false;
let rng = 0x2545f491;
let price = 100;
const points = []; // {seq, at, price}
let alerts = []; // {id, above?, below?}
const fired = []; // {alert, at, price}
let nextAlert = 1;

const random = () => {
  rng ^= rng << 13;
  rng ^= rng >>> 17;
  rng ^= rng << 5;
  return ((rng >>> 0) % 1_000_000) / 1_000_000;
};

function send(frame) {
  fs.writeSync(1, JSON.stringify({ jsonrpc: '2.0', ...frame }) + '\n');
}

function state() {
  const first = points[0]?.price ?? price;
  return {
    symbol: SYMBOL,
    price,
    change_pct: Math.round(((price - first) / first) * 10000) / 100,
    paused,
    alerts,
    fired: fired.slice(-8),
    points: points.slice(-IN_STATE),
  };
}

function changed() {
  seq += 1;
  send({ method: 'tick/update', params: { seq, at: new Date().toISOString(), data: state() } });
  draw();
}

function step() {
  if (paused) return;
  price = Math.round(price * (1 + (random() - 0.5) * 0.01) * 100) / 100;
  points.push({ seq: seq + 1, at: new Date().toISOString(), price });
  if (points.length > KEEP) points.shift();
  for (const a of alerts) {
    if ((a.above !== undefined && price >= a.above) || (a.below !== undefined && price <= a.below)) fired.push({ alert: a.id, at: new Date().toISOString(), price });
  }
  alerts = alerts.filter((a) => !fired.some((f) => f.alert === a.id));
  if (fired.length > 100) fired.splice(0, fired.length - 100);
  changed();
}

function handle(method, params) {
  if (method === 'tick/describe') return DESCRIPTOR;
  if (method === 'tick/read') return { seq, at: new Date().toISOString(), data: state() };
  if (method !== 'tick/call') throw { code: -32601, message: `unknown method ${method}` };
  if (params.revision !== REVISION) throw { code: -32004, message: 'the Tick Tool catalog changed; describe the Tick and prepare the call again' };
  const args = params.args ?? {};
  const only = (allowed) => typeof args === 'object' && args !== null && Object.keys(args).every((k) => allowed.includes(k));
  switch (params.tool) {
    case 'history': {
      if (!only(['after_seq', 'limit'])) throw { code: -32602, message: 'history takes after_seq and limit' };
      if (args.after_seq !== undefined && !Number.isSafeInteger(args.after_seq)) throw { code: -32602, message: 'after_seq must be an integer' };
      if (args.limit !== undefined && !(Number.isSafeInteger(args.limit) && args.limit >= 1 && args.limit <= 1000)) throw { code: -32602, message: 'limit must be an integer from 1 to 1000' };
      const after = points.filter((p) => args.after_seq === undefined || p.seq > args.after_seq);
      return { points: after.slice(-(args.limit ?? KEEP)) };
    }
    case 'set_alert': {
      const num = (v) => v === undefined || (typeof v === 'number' && Number.isFinite(v));
      if (!only(['above', 'below']) || (args.above === undefined && args.below === undefined) || !num(args.above) || !num(args.below)) {
        throw { code: -32602, message: 'set_alert takes above and/or below, numbers' };
      }
      const alert = { id: nextAlert++, ...(args.above !== undefined ? { above: args.above } : {}), ...(args.below !== undefined ? { below: args.below } : {}) };
      alerts.push(alert);
      changed();
      return { alert };
    }
    case 'clear_alerts':
      if (!only([])) throw { code: -32602, message: 'clear_alerts takes no arguments' };
      alerts = [];
      changed();
      return { alerts: [] };
    case 'pause':
      if (!only(['paused']) || typeof args.paused !== 'boolean') throw { code: -32602, message: 'pause takes {"paused": true|false}' };
      paused = args.paused;
      changed();
      return { paused };
    default:
      throw { code: -32602, message: `unknown tool ${JSON.stringify(params.tool)}` };
  }
}

// ── the view ──
let out;
try {
  out = new tty.WriteStream(fs.openSync('/dev/tty', 'r+'));
  const input = new tty.ReadStream(fs.openSync('/dev/tty', 'r'));
  input.setRawMode(true);
  input.on('data', (buf) => {
    for (const ch of buf.toString('utf8')) {
      if (ch === ' ') {
        paused = !paused;
        changed();
      } else if (ch === 'a') {
        alerts.push({ id: nextAlert++, above: Math.round(price * 101) / 100 });
        changed();
      }
    }
  });
  input.unref();
} catch {
  out = undefined;
}
const BARS = '▁▂▃▄▅▆▇█';
function draw() {
  if (!out) return;
  out._refreshSize?.();
  const cols = Math.max(20, out.columns || 120);
  const recent = points.slice(-(cols - 2));
  const lo = Math.min(...recent.map((p) => p.price), price);
  const hi = Math.max(...recent.map((p) => p.price), price);
  const spark = recent.map((p) => BARS[hi === lo ? 0 : Math.round(((p.price - lo) / (hi - lo)) * 7)]).join('');
  const s = state();
  const lines = [
    `${SYMBOL}  ${price.toFixed(2)}  (${s.change_pct >= 0 ? '+' : ''}${s.change_pct}%)${paused ? '  [paused]' : ''}`,
    '',
    spark,
    '',
    `alerts: ${alerts.map((a) => (a.above !== undefined ? `≥${a.above}` : '') + (a.below !== undefined ? `≤${a.below}` : '')).join(', ') || 'none'}`,
    `fired: ${fired.slice(-3).map((f) => `#${f.alert} at ${f.price}`).join(', ') || 'none'}`,
    '',
    'space: pause/resume   a: alert 1% above',
  ];
  out.write('\x1b[H\x1b[2J' + lines.map((l) => l.slice(0, cols)).join('\r\n'));
}
if (out) process.on('SIGWINCH', draw);
draw();

const timer = setInterval(step, INTERVAL);

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on('line', (line) => {
  let request;
  try {
    request = JSON.parse(line);
  } catch {
    return;
  }
  if (typeof request !== 'object' || request === null || !Number.isSafeInteger(request.id) || typeof request.method !== 'string') return;
  try {
    send({ id: request.id, result: handle(request.method, request.params ?? {}) });
  } catch (error) {
    const code = Number.isSafeInteger(error?.code) ? error.code : -32603;
    send({ id: request.id, error: { code, message: String(error?.message ?? error) } });
  }
});
rl.on('close', () => {
  clearInterval(timer);
  process.exit(0);
});
process.on('SIGTERM', () => process.exit(0));

/**
 * Tick host benchmark (`npm run bench -- tick`):
 *  1. tick/read round trip through the host (session engine over pipes, and through the
 *     launcher in a real pane), p50 and p99, against the same JSON-lines round trip over a
 *     bare pipe to the same Tick in the same run; the ratio at p99 (goal: under 2x);
 *  2. updates per second the host absorbs from a flooding Tick, and tick/read latency
 *     during the flood (the host staying responsive).
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { Core } from '../main/core.ts';
import { PaneService } from '../main/panes/service.ts';
import { tempState } from '../main/panes/testing.ts';
import { statePaths } from '../main/paths.ts';
import { TickHost } from '../main/tick/host.ts';
import type { TickSession } from '../main/tick/session.ts';

const TICK = path.resolve(import.meta.dirname, '..', 'main', 'tick', 'testdata', 'scripted.mjs');
const ROUNDS = 3000;
const WARMUP = 300;
const FLOOD = 100_000;

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
const ms = (x: number) => `${x.toFixed(3)} ms`;

/** The same round trip over a bare pipe: write a tick/read line, wait for its response line. */
async function barePipe(rounds: number): Promise<number[]> {
  const child = spawn(process.execPath, [TICK, 'good'], { stdio: ['pipe', 'pipe', 'inherit'] });
  let buf = '';
  let waiting: ((line: string) => void) | undefined;
  child.stdout.on('data', (d: Buffer) => {
    buf += d.toString('utf8');
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      const msg = JSON.parse(line) as { id?: number };
      if (msg.id !== undefined && waiting) {
        const w = waiting;
        waiting = undefined;
        w(line);
      }
    }
  });
  const times: number[] = [];
  for (let i = 1; i <= rounds + WARMUP; i++) {
    const t0 = performance.now();
    await new Promise<string>((resolve) => {
      waiting = resolve;
      child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tick/read', params: {} }) + '\n');
    });
    if (i > WARMUP) times.push(performance.now() - t0);
  }
  child.kill();
  return times;
}

async function hostReads(session: TickSession, rounds: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < rounds + WARMUP; i++) {
    const t0 = performance.now();
    const r = await session.read();
    if (!r.ok) throw new Error(`tick/read failed: ${r.reason}`);
    if (i >= WARMUP) times.push(performance.now() - t0);
  }
  return times;
}

function summary(name: string, times: number[]): { line: string; p50: number; p99: number } {
  const s = [...times].sort((a, b) => a - b);
  const p50 = pct(s, 50);
  const p99 = pct(s, 99);
  return { line: `${name.padEnd(34)} p50 ${ms(p50)}   p99 ${ms(p99)}   (${times.length} round trips)`, p50, p99 };
}

export async function benchTick(): Promise<{ name: string; lines: string[] }> {
  const lines: string[] = [];
  const state = tempState('td-bench-tick-');
  const core = new Core();
  const panes = new PaneService({ core, paths: statePaths(state.env), env: state.env, cwd: state.dir });
  const direct = new TickHost({ env: process.env });
  const inPanes = new TickHost({ core, panes, env: state.env });
  try {
    // 1. Round trips, interleaved order so drift hits all alike.
    const bare = summary('bare pipe (baseline)', await barePipe(ROUNDS));
    const a = await direct.open({ command: [process.execPath, TICK, 'good'], cwd: os.tmpdir() });
    if (!a.ok) throw new Error(a.error);
    const viaSession = summary('host, session over pipes', await hostReads(direct.session(a.instance.id)!, ROUNDS));
    const b = await inPanes.open({ command: [process.execPath, TICK, 'good'], cwd: state.dir });
    if (!b.ok) throw new Error(b.error);
    const viaPane = summary('host, launcher in a pane (socket)', await hostReads(inPanes.session(b.instance.id)!, ROUNDS));
    lines.push('tick/read round trip');
    for (const s of [bare, viaSession, viaPane]) lines.push('  ' + s.line);
    const ratio = (x: { p99: number }) => x.p99 / bare.p99;
    lines.push(`  ratio at p99: session ${ratio(viaSession).toFixed(2)}x, pane ${ratio(viaPane).toFixed(2)}x the bare pipe (goal: under 2x) — ${ratio(viaSession) < 2 ? 'met' : 'NOT met'} for the session, ${ratio(viaPane) < 2 ? 'met' : 'NOT met'} through the pane`);

    // 2. A flood of updates while reading.
    const session = direct.session(a.instance.id)!;
    const before = session.counters.updates;
    const t0 = performance.now();
    const flood = session.call('stream', { count: FLOOD, batch: 200 }, '1', 120_000);
    const during: number[] = [];
    let done = false;
    void flood.then(() => {
      done = true;
    });
    while (!done) {
      const r0 = performance.now();
      const r = await session.read();
      if (r.ok) during.push(performance.now() - r0);
    }
    const res = await flood;
    const elapsed = (performance.now() - t0) / 1000;
    const absorbed = session.counters.updates - before;
    if (!res.ok || absorbed !== FLOOD) throw new Error(`the flood went wrong: ${res.reason ?? ''} ${absorbed} updates`);
    const d = summary('tick/read during the flood', during);
    lines.push('flood of updates');
    lines.push(`  ${FLOOD} updates absorbed in ${elapsed.toFixed(2)} s: ${Math.round(FLOOD / elapsed).toLocaleString('en-US')} updates/s; latest seq ${session.latest?.seq}, session ${session.ended ? 'ENDED' : 'alive'}`);
    lines.push('  ' + d.line);
  } finally {
    await direct.dispose();
    await inPanes.dispose();
    panes.dispose();
    state.cleanup();
  }
  return { name: 'tick: host protocol overhead', lines };
}

/** The entry `npm run bench` calls. */
export const run = benchTick;

/**
 * Surface arrival (issue 3): the time from a file renamed into a pane folder to its
 * `surface.changed` event reaching a window (a WebSocket client of `serve`, as the
 * renderer is), p50 and p99 over 200 files, with 32 panes open and 64 surfaces each.
 * Once with polling alone, once with file events. Then the poller's CPU at idle.
 * Baseline, measured in the same run: a bare fs.watch on one folder seeing a rename
 * (the floor under the events path), and the poll interval (the ceiling of polling).
 * Goals: p99 under 1.1 s polling alone, under 100 ms with events; idle under 1% of a core.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { startServe } from '../main/serve/server.ts';

const PANES = 32;
const SURFACES = 64;
const FILES = 200;

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const doc = (id: string) => JSON.stringify({ td: '0.4', kind: 'response', id, model: { layman: `arrival ${id}` } });

async function fsWatchFloor(dir: string): Promise<number[]> {
  const d = path.join(dir, 'floor');
  fs.mkdirSync(d);
  const times: number[] = [];
  for (let i = 0; i < 50; i++) {
    const name = `f${i}.json`;
    const seen = new Promise<void>((resolve) => {
      const w = fs.watch(d, (_e, f) => {
        if (f === name) {
          w.close();
          resolve();
        }
      });
    });
    const t0 = performance.now();
    fs.writeFileSync(path.join(d, `.${name}.tmp`), doc(`f${i}`));
    fs.renameSync(path.join(d, `.${name}.tmp`), path.join(d, name));
    await seen;
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b);
}

export async function run(): Promise<{ name: string; lines: string[] }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'td-bench-surfaces-'));
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_STATE_HOME: path.join(dir, 'state'), TD_SOCKET: path.join(dir, 'td.sock'), SHELL: '/bin/sh' };
  delete env.TD_PANE_ID;
  delete env.TD_SESSION;
  const served = await startServe({ env, fresh: true, cwd: dir, token: 'bench-token' });
  const { app } = served;
  const lines: string[] = [];
  try {
    const panes = Array.from({ length: PANES }, () => app.panes.create({ command: ['/bin/cat'] }));
    for (const p of panes) {
      const folder = app.panes.folder(p.id);
      for (let i = 0; i < SURFACES; i++) fs.writeFileSync(path.join(folder, `old${i}.json`), doc(`old${i}`));
    }
    app.surfaces.poller.scanAll();
    const filled = panes.every((p) => app.surfaces.list(p.id).length === SURFACES);
    if (!filled) throw new Error('the panes did not fill with 64 surfaces each');

    const ws = new WebSocket(`ws://127.0.0.1:${served.port}/ws?token=${served.token}`, { origin: `http://127.0.0.1:${served.port}` });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const arrived = new Map<string, number>();
    ws.on('message', (raw) => {
      const frame = JSON.parse(raw.toString()) as { t: string; name?: string; payload?: { paneId: string; surface?: { id: string } } };
      if (frame.t === 'evt' && frame.name === 'surface.changed' && frame.payload?.surface) {
        const key = `${frame.payload.paneId}/${frame.payload.surface.id}`;
        if (!arrived.has(key)) arrived.set(key, performance.now());
      }
    });

    const measure = async (label: string, prefix: string): Promise<number[]> => {
      const sent = new Map<string, number>();
      for (let i = 0; i < FILES; i++) {
        const pane = panes[i % PANES]!;
        const folder = app.panes.folder(pane.id);
        const id = `${prefix}${i}`;
        fs.writeFileSync(path.join(folder, `.${id}.json.tmp`), doc(id));
        sent.set(`${pane.id}/${id}`, performance.now());
        fs.renameSync(path.join(folder, `.${id}.json.tmp`), path.join(folder, `${id}.json`));
        await sleep(7 + Math.random() * 20); // spread over a few seconds, out of step with the poll
      }
      const deadline = Date.now() + 15_000;
      while ([...sent.keys()].some((k) => !arrived.has(k)) && Date.now() < deadline) await sleep(20);
      const times = [...sent].map(([k, t]) => (arrived.get(k) ?? Infinity) - t).sort((a, b) => a - b);
      const missing = times.filter((t) => !Number.isFinite(t)).length;
      lines.push(`${label}: p50 ${pct(times, 50).toFixed(1)} ms, p99 ${pct(times, 99).toFixed(1)} ms over ${FILES} files${missing ? ` (${missing} never arrived)` : ''}`);
      return times;
    };

    const floor = await fsWatchFloor(dir);
    lines.push(`baseline: bare fs.watch sees a rename: p50 ${pct(floor, 50).toFixed(2)} ms, p99 ${pct(floor, 99).toFixed(2)} ms; poll interval 1000 ms`);

    await app.surfaces.poller.useEvents(false);
    const polled = await measure('polling alone', 'poll');
    lines.push(`  p99 / 1100 ms goal = ${(pct(polled, 99) / 1100).toFixed(2)}x; p50 / poll interval = ${(pct(polled, 50) / 1000).toFixed(2)}x`);

    await app.surfaces.poller.useEvents(true);
    await sleep(500);
    const evented = await measure('with file events', 'evt');
    lines.push(`  p99 / 100 ms goal = ${(pct(evented, 99) / 100).toFixed(2)}x; p50 / fs.watch p50 = ${(pct(evented, 50) / pct(floor, 50)).toFixed(1)}x`);
    ws.close();

    // Idle: the poller's own cost, and the whole core process's, with 32 panes of 64 surfaces (events off).
    await app.surfaces.poller.useEvents(false);
    let best = Infinity;
    for (let batch = 0; batch < 3; batch++) {
      const c0 = process.cpuUsage();
      for (let k = 0; k < 10; k++) app.surfaces.poller.scanAll();
      const c = process.cpuUsage(c0);
      best = Math.min(best, (c.user + c.system) / 1000 / 10);
    }
    lines.push(`idle poller: ${best.toFixed(2)} ms of CPU per once-a-second read of ${PANES} panes x ~${SURFACES + FILES / PANES} surfaces = ${(best / 10).toFixed(2)}% of a core (goal under 1%)`);
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await sleep(5000);
    const c = process.cpuUsage(c0);
    const share = ((c.user + c.system) / 1000) / (performance.now() - t0) * 100;
    lines.push(`idle core process (panes, surfaces, serve, MCP), 5 s: ${share.toFixed(2)}% of a core`);
  } finally {
    await served.close();
    await app.dispose().catch(() => undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return { name: 'surfaces: arrival from a renamed file to a window, and the poller at idle', lines };
}

/**
 * The Changes card (issue 12): the time from an agent's file write in its worktree to
 * the card's `surface.changed` event carrying that edit, p50 and p99 over 30 edits (the
 * issue's goal: within a second). Baseline, measured in the same run: one `git diff`
 * of the same worktree (the floor under a refresh, which runs a few git commands after
 * a 150 ms quiet spell).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createApp } from '../main/app.ts';
import { tempState } from '../main/panes/testing.ts';
import { CHANGES_ID } from '../main/worktrees/changes.ts';
import { AGENT_SOURCE, gitTestEnv, makeRepo } from '../main/worktrees/testing.ts';

const EDITS = 30;

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export async function run(): Promise<{ name: string; lines: string[] }> {
  const state = tempState('td-bench-worktrees-');
  const env = gitTestEnv(state.env, state.dir);
  const repo = makeRepo(path.join(state.dir, 'app'), env);
  const script = path.join(state.dir, 'agent.mjs');
  fs.writeFileSync(script, AGENT_SOURCE);
  env.AGENT_LOG = path.join(state.dir, 'agent.log');
  const app = await createApp({ shell: 'serve', env, cwd: repo, fresh: true });
  try {
    const res = await app.core.request('worktree.new', { repo, name: 'bench', command: [process.execPath, script] }, { id: 'bench' });
    if (!res.ok) throw new Error(res.error);
    const { pane, worktree } = res;
    let waiting: { marker: string; resolve(): void } | undefined;
    app.core.onEvent((name, payload) => {
      if (name !== 'surface.changed' || !waiting) return;
      const p = payload as { paneId: string; surface?: { id: string; model: { files?: Array<{ diff: string }> } } };
      if (p.paneId === pane.id && p.surface?.id === CHANGES_ID && p.surface.model.files?.some((f) => f.diff.includes(waiting!.marker))) waiting.resolve();
    });
    await new Promise((r) => setTimeout(r, 1000));
    const times: number[] = [];
    for (let i = 0; i < EDITS; i++) {
      const marker = `edit-${i}-${Math.random().toString(36).slice(2)}`;
      const seen = new Promise<void>((resolve) => { waiting = { marker, resolve }; });
      const t0 = performance.now();
      fs.appendFileSync(path.join(worktree.path, 'a.txt'), `${marker}\n`);
      await seen;
      times.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 200));
    }
    const floor: number[] = [];
    for (let i = 0; i < EDITS; i++) {
      const t0 = performance.now();
      execFileSync('git', ['diff', 'main'], { cwd: worktree.path, env, stdio: 'ignore' });
      floor.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    floor.sort((a, b) => a - b);
    const f50 = pct(floor, 50);
    return {
      name: 'worktrees: an edit to the Changes card',
      lines: [
        `edit → card: p50 ${pct(times, 50).toFixed(0)} ms, p99 ${pct(times, 99).toFixed(0)} ms (goal: under 1000 ms)`,
        `baseline, one git diff: p50 ${f50.toFixed(1)} ms; the card takes ${(pct(times, 50) / f50).toFixed(1)}x that at p50 (150 ms of quiet, then git diff, add -N, rev-list)`,
      ],
    };
  } finally {
    await app.dispose();
    state.cleanup();
  }
}

/**
 * Checkpoints per turn (issue 37) on a repository of 10,000 files and 100 MB (100
 * folders of 100 files of 10 KiB, committed):
 *
 * - a checkpoint, warm (after one file changed; the temporary index seeded from the
 *   repository's own, `git add -A`, `write-tree`, `commit-tree`, `update-ref`): p50 and
 *   p99 of 20 (goal: p50 under 150 ms). Baselines in the same run, after the same edit:
 *   `git stash create` (git's own snapshot of the working tree, tracked files only) and
 *   `git add -A` into a copy of the index alone.
 * - an edit to the updated Changes card (This turn, a pane whose agent has had a prompt):
 *   the time from a file write to the card's `surface.changed` carrying it, p50 and p99
 *   of 20 (goal: p50 under 500 ms); a refresh is 150 ms of quiet, a snapshot of the tree,
 *   two diffs and the timeline's counts.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApp } from '../main/app.ts';
import { waitFor } from '../main/panes/testing.ts';
import { checkpoint, targetOf } from '../main/turns/checkpoint.ts';
import { TURN_AGENT_SOURCE, turnsTestEnv } from '../main/turns/testing.ts';
import { CHANGES_ID } from '../main/worktrees/changes.ts';

const RUNS = 20;
const HOOK = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'scripts', 'hooks', 'tdac-hook.sh');

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

/** 100 folders × 100 files × 10 KiB, committed. */
function bigRepo(dir: string, env: NodeJS.ProcessEnv): void {
  fs.mkdirSync(dir, { recursive: true });
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  for (let d = 0; d < 100; d++) {
    const folder = path.join(dir, `pkg${d}`);
    fs.mkdirSync(folder);
    for (let f = 0; f < 100; f++) {
      const line = `// pkg ${d} file ${f}: ${'x'.repeat(60)}\n`;
      fs.writeFileSync(path.join(folder, `f${f}.ts`), line.repeat(Math.ceil(10240 / line.length)).slice(0, 10240));
    }
  }
  git('add', '-A');
  git('commit', '-q', '-m', 'Ten thousand files');
}

async function timeIt(fn: () => Promise<unknown> | unknown): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

export async function run(): Promise<{ name: string; lines: string[] }> {
  const t = turnsTestEnv();
  const repo = path.join(t.dir, 'big');
  try {
    const made = performance.now();
    bigRepo(repo, t.env);
    const madeMs = performance.now() - made;
    const target = (await targetOf(repo, t.state, t.env))!;
    const edit = (i: number) => fs.appendFileSync(path.join(repo, 'pkg7', 'f7.ts'), `// edit ${i}\n`);
    const cold = await timeIt(() => checkpoint(target, 'refs/terminal-delight/turns/bench/cold', 'cold', t.env));
    const cp: number[] = [];
    const stash: number[] = [];
    const add: number[] = [];
    const tmpIndex = path.join(os.tmpdir(), `td-bench-${process.pid}.index`);
    for (let i = 0; i < RUNS; i++) {
      edit(i);
      cp.push(await timeIt(() => checkpoint(target, `refs/terminal-delight/turns/bench/${i}`, `run ${i}`, t.env)));
      edit(i + 1000);
      stash.push(await timeIt(() => execFileSync('git', ['stash', 'create'], { cwd: repo, env: t.env, stdio: 'ignore' })));
      edit(i + 2000);
      add.push(await timeIt(() => {
        fs.copyFileSync(path.join(repo, '.git', 'index'), tmpIndex);
        execFileSync('git', ['add', '-A'], { cwd: repo, env: { ...t.env, GIT_INDEX_FILE: tmpIndex }, stdio: 'ignore' });
      }));
    }
    fs.rmSync(tmpIndex, { force: true });

    // Edit → card, in the real app: a pane whose agent had a prompt (the real hook), then edits.
    const script = path.join(t.dir, 'agent.mjs');
    fs.writeFileSync(script, TURN_AGENT_SOURCE);
    const env = { ...t.env, AGENT_LOG: path.join(t.dir, 'agent.log'), TURN_HOOK: HOOK, TD_NODE: process.execPath };
    const app = await createApp({ shell: 'serve', env, cwd: repo, fresh: true });
    const card: number[] = [];
    try {
      const pane = app.panes.create({ command: [process.execPath, script], cwd: repo });
      await waitFor(() => app.panes.screenText(pane.id).includes('agent ready'), 'the agent', 30_000);
      app.panes.write(pane.id, 'prompt make the edits\r');
      await waitFor(() => app.panes.screenText(pane.id).includes('prompted'), 'the prompt hook', 60_000);
      let waiting: { marker: string; resolve(): void } | undefined;
      app.core.onEvent((name, payload) => {
        if (name !== 'surface.changed' || !waiting) return;
        const p = payload as { paneId: string; surface?: { id: string; model: { files?: Array<{ diff: string }> } } };
        if (p.paneId === pane.id && p.surface?.id === CHANGES_ID && p.surface.model.files?.some((f) => f.diff.includes(waiting!.marker))) waiting.resolve();
      });
      await new Promise((r) => setTimeout(r, 2000));
      for (let i = 0; i < RUNS; i++) {
        const marker = `card-${i}-${Math.random().toString(36).slice(2)}`;
        const seen = new Promise<void>((resolve) => { waiting = { marker, resolve }; });
        const t0 = performance.now();
        fs.appendFileSync(path.join(repo, 'pkg3', 'f3.ts'), `// ${marker}\n`);
        await seen;
        card.push(performance.now() - t0);
        await new Promise((r) => setTimeout(r, 300));
      }
    } finally {
      await app.dispose();
    }
    const c50 = pct(cp, 50);
    return {
      name: 'turns: checkpoints and the Changes card by turn (10,000 files, 100 MB)',
      lines: [
        `repository made and committed in ${(madeMs / 1000).toFixed(1)} s; first checkpoint (cold) ${cold.toFixed(0)} ms`,
        `checkpoint, warm: p50 ${c50.toFixed(0)} ms, p99 ${pct(cp, 99).toFixed(0)} ms (goal: p50 under 150 ms)`,
        `baseline, git stash create: p50 ${pct(stash, 50).toFixed(0)} ms; a checkpoint takes ${(c50 / pct(stash, 50)).toFixed(2)}x that`,
        `baseline, git add -A into a copy of the index: p50 ${pct(add, 50).toFixed(0)} ms; a checkpoint takes ${(c50 / pct(add, 50)).toFixed(2)}x that`,
        `edit → card (This turn): p50 ${pct(card, 50).toFixed(0)} ms, p99 ${pct(card, 99).toFixed(0)} ms (goal: p50 under 500 ms; 150 ms of it is the quiet wait)`,
      ],
    };
  } finally {
    t.cleanup();
  }
}

/**
 * The TDAC hook's cost per call, as Claude Code runs it (`sh tdac-hook.sh`, JSON on stdin).
 * Outside a pane it must exit at once without starting node; inside one it starts node
 * once. Baselines measured in the same run: `sh -c 'exit 0'` (the floor of any hook) and
 * `node -e 0` (the floor of a hook written in Node). Medians of 40 runs after 5 of warm-up.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HOOK_SH, runHook, sampleInput } from '../scripts/hooks/hook-runner.ts';
import { median } from './log.ts';

const RUNS = 40;

function timed(cmd: string, args: string[], input: string, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { env, stdio: ['pipe', 'ignore', 'ignore'] });
    child.on('error', reject);
    child.on('close', () => resolve(performance.now() - t0));
    child.stdin.on('error', () => {}); // sh -c 'exit 0' never reads it
    child.stdin.end(input);
  });
}

async function series(f: () => Promise<number>): Promise<number> {
  for (let i = 0; i < 5; i++) await f();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push(await f());
  return median(times);
}

export async function run(): Promise<{ name: string; lines: string[] }> {
  const state = fs.mkdtempSync(path.join(os.tmpdir(), 'td-bench-hook-'));
  try {
    const input = JSON.stringify(sampleInput('stop.json'));
    const outside = { PATH: process.env.PATH, HOME: state, XDG_STATE_HOME: state };
    const folder = path.join(state, 'terminal-delight', 'surfaces', 's1', 'p1');
    fs.mkdirSync(folder, { recursive: true });
    const inside = { ...outside, TD_SESSION: 's1', TD_PANE_ID: 'p1' };
    const sh = await series(() => timed('sh', ['-c', 'exit 0'], input, outside));
    const node = await series(() => timed(process.execPath, ['-e', '0'], input, outside));
    const out = await series(async () => (await runHook(input, outside)).ms);
    const inPane = await series(async () => (await runHook(input, inside)).ms);
    return {
      name: 'hook: tdac-hook.sh per call, outside and inside a pane',
      lines: [
        `baseline: sh -c 'exit 0' ${sh.toFixed(1)} ms, node -e 0 ${node.toFixed(1)} ms (medians of ${RUNS})`,
        `outside a pane: ${out.toFixed(1)} ms = ${(out / sh).toFixed(2)}x sh, ${(out / node).toFixed(2)}x node -e 0 (goal: near sh, far under node: node is never started)`,
        `inside a pane (Stop event appended to inbound.jsonl): ${inPane.toFixed(1)} ms = ${(inPane / node).toFixed(2)}x node -e 0`,
        `script: ${HOOK_SH}`,
      ],
    };
  } finally {
    fs.rmSync(state, { recursive: true, force: true });
  }
}

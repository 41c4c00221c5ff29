/**
 * Runs the TDAC hook as the agents do (`sh tdac-hook.sh [--agent NAME]`, the hook JSON on stdin) and
 * reads what it wrote. For tests of the hook and of the agent channel that answers it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const HOOK_SH = path.join(path.dirname(fileURLToPath(import.meta.url)), 'tdac-hook.sh');
export const HOOK_INPUTS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'assets', 'claude', 'hook-input');

export function sampleInput(name: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(path.join(HOOK_INPUTS, name), 'utf8')) as Record<string, unknown>;
}

export interface HookRun {
  child: ChildProcess;
  done: Promise<{ code: number | null; stdout: string; stderr: string; ms: number }>;
}

export function startHook(input: unknown, env: Record<string, string | undefined>, args: string[] = []): HookRun {
  const started = performance.now();
  const child = spawn('sh', [HOOK_SH, ...args], { env: env as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
  child.stdin!.on('error', () => {});
  child.stdin!.end(typeof input === 'string' ? input : JSON.stringify(input));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string; ms: number }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, ms: performance.now() - started }));
  });
  return { child, done };
}

export function runHook(input: unknown, env: Record<string, string | undefined>, args: string[] = []) {
  return startHook(input, env, args).done;
}

/** Every line of inbound.jsonl, parsed. */
export function readEvents(folder: string): Array<Record<string, unknown>> {
  const file = path.join(folder, 'inbound.jsonl');
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Polls until `check` returns a value, or throws after `ms`. */
export async function until<T>(check: () => T | undefined | false, ms = 20_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

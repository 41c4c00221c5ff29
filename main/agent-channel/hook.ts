/**
 * The hook every agent runs (through scripts/hooks/tdac-hook.sh, with the app's own Node
 * and type stripping): TDAC 0.2, the agent channel's writing side.
 *
 *   tdac-hook.sh [--agent claude|codex|gemini|opencode] [EVENT]   (the payload on stdin)
 *
 * The agent's module (agents/<name>.ts) turns the payload into TDAC events, appended one
 * a line to inbound.jsonl in the pane's folder ($XDG_STATE_HOME/terminal-delight/
 * surfaces/$TD_SESSION/$TD_PANE_ID); for a question or a permission prompt, while the
 * pane's bench is open (bench.json), the hook waits for answers/<id>.json (answers.ts)
 * and prints the answer in the agent's own output shape. Outside a pane, or on anything
 * unexpected, it exits 0 with no output, so the agent carries on as if there were no
 * hook. docs/spec/td-surface-protocol.md ("TDAC 0.2") describes what it writes.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { stateHomeOf } from '../paths.ts';
import { isAnswer, readSettlement, settle, type AnswerFile } from './answers.ts';
import { AGENTS, isAgentName } from './agents/index.ts';
import type { EventDraft, HookWait } from './agents/types.ts';
import { recordTurn } from '../turns/log.ts';

export const TDAC = '0.2';

function positiveNumber(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

/** How long a question or permission prompt waits for the bench, in seconds. */
const WAIT_S = positiveNumber(process.env.TD_QUESTION_WAIT_S, 540);
/** How long the window may take to read a question before the hook stops waiting for it. */
const WINDOW_GRACE_S = positiveNumber(process.env.TD_WINDOW_GRACE_S, 5);
/** How often the answer file and bench.json are looked at while waiting. */
const POLL_MS = positiveNumber(process.env.TD_QUESTION_POLL_MS, 200);

const SAFE = /^[A-Za-z0-9._:-]{1,128}$/;
const safeSegment = (v: string | undefined): v is string => typeof v === 'string' && SAFE.test(v) && v !== '.' && v !== '..';

export function paneFolder(env: NodeJS.ProcessEnv): string | undefined {
  if (!safeSegment(env.TD_SESSION) || !safeSegment(env.TD_PANE_ID)) return undefined;
  return path.join(stateHomeOf(env), 'terminal-delight', 'surfaces', env.TD_SESSION, env.TD_PANE_ID);
}

/** All of standard input; a non-blocking pipe (EAGAIN) is waited on, for at most 10 s. */
function readStdin(): string {
  const chunks: Buffer[] = [];
  const buf = Buffer.alloc(64 * 1024);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const giveUp = Date.now() + 10_000;
  for (;;) {
    let n: number;
    try {
      n = fs.readSync(0, buf, 0, buf.length, null);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN' && Date.now() < giveUp) {
        Atomics.wait(pause, 0, 0, 10);
        continue;
      }
      if (code === 'EOF') break;
      return '';
    }
    if (n === 0) break;
    chunks.push(Buffer.from(buf.subarray(0, n)));
  }
  return Buffer.concat(chunks).toString('utf8');
}

const newId = (prefix: string) => `${prefix}-${crypto.randomBytes(6).toString('hex')}`;

/** Appends one event as one line with one write to an O_APPEND file; returns the file's size after it. */
function append(folder: string, agent: string, event: Record<string, unknown>): number {
  const line = Buffer.from(`${JSON.stringify({ tdac: TDAC, ...event, agent, at: new Date().toISOString() })}\n`);
  fs.mkdirSync(folder, { recursive: true });
  const fd = fs.openSync(path.join(folder, 'inbound.jsonl'), 'a', 0o600);
  try {
    let done = 0;
    while (done < line.length) done += fs.writeSync(fd, line, done, line.length - done);
    return fs.fstatSync(fd).size;
  } finally {
    fs.closeSync(fd);
  }
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Whether the window has read inbound.jsonl up to `end`: the agent channel keeps its
 * read offset in .agent-channel.json, so a window that is there passes `end` within a
 * second or so of the append.
 */
function windowRead(folder: string, end: number): boolean {
  const state = readJson(path.join(folder, '.agent-channel.json')) as { offset?: unknown } | undefined;
  return !!state && typeof state.offset === 'number' && state.offset >= end;
}

function benchOpen(folder: string): boolean {
  const bench = readJson(path.join(folder, 'bench.json')) as { open?: unknown } | undefined;
  return !!bench && bench.open === true;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The agent ending a waiting hook (Claude Code does when the person presses Esc or
 * answers "No" in its own prompt): noted, so the wait closes as `cancelled`. Armed before
 * the event is appended, so a signal landing between the two is never a silent death.
 */
let stopReason: string | undefined;
function armSignals(): void {
  const onSignal = () => { stopReason = 'cancelled'; };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  process.on('SIGHUP', onSignal);
}

/**
 * Waits while the bench is open for the wait to be settled (answers.ts). Returns the
 * bench's answer, or undefined when the window retired the wait (answered in the
 * terminal, cancelled, invalidated) or the hook gave up: then it settles the wait as
 * closed (so a late answer is refused) and appends `unanswered` with the reason.
 */
async function waitForAnswer(folder: string, agent: string, wait: HookWait, end: number): Promise<AnswerFile | undefined> {
  const id = wait.event.id;
  const deadline = Date.now() + WAIT_S * 1000;
  const graceEnd = Date.now() + WINDOW_GRACE_S * 1000;
  let seen = false;
  let reason = 'bench_closed';
  // The agent ended us without a signal we can catch, but our parent went first: it no longer waits.
  const parent = process.ppid;
  if (benchOpen(folder)) {
    for (;;) {
      if (stopReason) { reason = stopReason; break; }
      if (process.ppid !== parent) { reason = 'cancelled'; break; }
      const s = readSettlement(folder, id);
      if (s !== undefined) {
        if (isAnswer(s) && ('pass' in s || wait.accepts(s))) return s;
        if ('retired' in s) return undefined;
      }
      if (Date.now() >= deadline) { reason = 'timeout'; break; }
      if (!benchOpen(folder)) { reason = 'bench_closed'; break; }
      if (!seen) {
        seen = windowRead(folder, end);
        // No window reads this pane (it quit, or this is a leftover shell): ask in the terminal.
        if (!seen && Date.now() >= graceEnd) { reason = 'no_window'; break; }
      }
      await sleep(Math.min(POLL_MS, Math.max(1, deadline - Date.now())));
    }
  }
  let got: ReturnType<typeof settle>;
  try {
    got = settle(folder, id, { closed: reason, at: new Date().toISOString() });
  } catch {
    return undefined;
  }
  if (!got.won) {
    const s = got.existing;
    if (s && 'retired' in s) return undefined;
    // An answer that landed in that very moment is taken, unless the agent already ended the wait.
    if (isAnswer(s) && ('pass' in s || wait.accepts(s)) && !stopReason) return s;
  }
  append(folder, agent, { type: 'unanswered', id: newId('u'), of: id, reason });
  return undefined;
}

/** Parses the command line: `[--agent NAME] [EVENT]`. */
export function parseArgs(argv: readonly string[]): { agent: string; eventArg?: string } {
  let agent = 'claude';
  let eventArg: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--agent' && i + 1 < argv.length) agent = argv[++i];
    else if (a.startsWith('--agent=')) agent = a.slice('--agent='.length);
    else eventArg ??= a;
  }
  return { agent, eventArg };
}

export async function main(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<unknown> {
  const folder = paneFolder(env);
  if (!folder) return undefined;
  const args = parseArgs(argv);
  if (!isAgentName(args.agent)) return undefined;
  const agent = AGENTS[args.agent];
  let input: unknown;
  try {
    input = JSON.parse(readStdin());
  } catch {
    return undefined;
  }
  if (!input || typeof input !== 'object' || Array.isArray(input)) return undefined;
  const plan = agent.hook(input as Record<string, unknown>, { id: newId, eventArg: args.eventArg });
  for (const e of plan.events) {
    // A turn's checkpoint is taken before the agent goes on (it waits for this hook), so a
    // turn's start is the files before any edit of it (main/turns/log.ts). TD_TURNS=0: none.
    if ((e.type === 'prompt' || e.type === 'reply') && env.TD_TURNS !== '0') {
      const cwd = typeof (input as { cwd?: unknown }).cwd === 'string' && path.isAbsolute((input as { cwd: string }).cwd) ? (input as { cwd: string }).cwd : process.cwd();
      await recordTurn(folder, env, e.type === 'prompt' ? 'start' : 'end', { cwd, agent: agent.name, ...(e.type === 'prompt' && typeof e.text === 'string' ? { prompt: e.text } : {}) });
    }
    append(folder, agent.name, e);
  }
  if (!plan.wait) return undefined;
  armSignals();
  // The window watches this process: an agent that kills it (SIGKILL: Codex on Esc) leaves no line behind.
  const end = append(folder, agent.name, { ...plan.wait.event, hook_pid: process.pid });
  const answer = await waitForAnswer(folder, agent.name, plan.wait, end);
  if (!answer || 'pass' in answer) return undefined;
  const output = plan.wait.output(answer);
  const told: EventDraft = { type: 'answer', id: newId('a'), of: plan.wait.event.id, ...answer };
  append(folder, agent.name, told);
  return output;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  main(process.argv.slice(2)).then(
    (output) => {
      if (output) process.stdout.write(`${JSON.stringify(output)}\n`, () => process.exit(0));
      else process.exit(0);
    },
    () => process.exit(0),
  );
}

/**
 * A pane's turns: `turns.jsonl` in the pane's folder, one line per checkpoint. The
 * agent channel's hook writes `start` when a person's prompt reaches the agent and `end`
 * when the agent's turn ends (it takes the checkpoint before the agent goes on, so the
 * start is always the files before any edit of that turn); a restore writes `restore`
 * (the files before it and after it). `turnsOf` reads the lines back as turns. Pure but
 * for reading, appending and `recordTurn`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { checkpoint, REF_ROOT, refSegment, skipMark, targetOf, type Env, type Target } from './checkpoint.ts';

export const TURNS_FILE = 'turns.jsonl';
/** How long the agent waits for a turn's checkpoint at most (a folder that takes longer is not tried again). */
export const HOOK_CHECKPOINT_MS = 20_000;
/** Longest prompt kept with a turn. */
const PROMPT_CHARS = 2000;

export interface TurnEntry {
  kind: 'start' | 'end' | 'restore';
  n: number;
  commit: string;
  at: string;
  target: Target;
  prompt?: string;
  agent?: string;
  /** For a restore: the turn it restored, and the files after it. */
  of?: number;
  after?: string;
}

export interface Turn {
  n: number;
  prompt: string;
  at: string;
  /** The checkpoint at its start. */
  start: string;
  /** The checkpoint at its end; absent while it runs (its end is the files now). */
  end?: string;
  endAt?: string;
  target: Target;
  agent?: string;
  /** A restore of turn `restoreOf`, which a person did. */
  restoreOf?: number;
}

const isTarget = (v: unknown): v is Target => {
  const t = v as Target;
  return !!t && typeof t.top === 'string' && typeof t.gitDir === 'string' && typeof t.seed === 'string' && typeof t.shadow === 'boolean';
};

/** One line as an entry, or undefined. */
export function parseEntry(line: string): TurnEntry | undefined {
  try {
    const e = JSON.parse(line) as TurnEntry;
    if ((e.kind === 'start' || e.kind === 'end' || e.kind === 'restore') && Number.isInteger(e.n) && /^[0-9a-f]{40,64}$/.test(e.commit) && typeof e.at === 'string' && isTarget(e.target)) return e;
  } catch {
    // a torn line
  }
  return undefined;
}

export function readEntries(folder: string): TurnEntry[] {
  let text: string;
  try {
    text = fs.readFileSync(path.join(folder, TURNS_FILE), 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').map(parseEntry).filter((e): e is TurnEntry => e !== undefined);
}

export function appendEntry(folder: string, e: TurnEntry): void {
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  fs.appendFileSync(path.join(folder, TURNS_FILE), `${JSON.stringify(e)}\n`, { mode: 0o600 });
}

/**
 * The turns the entries make, oldest first. A turn that had no end before the next one
 * started (the person interrupted the agent) ends where the next begins.
 */
export function turnsOf(entries: readonly TurnEntry[]): Turn[] {
  const out: Turn[] = [];
  for (const e of entries) {
    const last = out[out.length - 1];
    if (e.kind === 'end') {
      if (last && last.n === e.n && !last.end) Object.assign(last, { end: e.commit, endAt: e.at });
      continue;
    }
    if (last && !last.end) Object.assign(last, { end: e.commit, endAt: e.at });
    if (e.kind === 'start') out.push({ n: e.n, prompt: e.prompt ?? '', at: e.at, start: e.commit, target: e.target, ...(e.agent ? { agent: e.agent } : {}) });
    else out.push({ n: e.n, prompt: `Restore turn ${e.of}`, at: e.at, start: e.commit, end: e.after, endAt: e.at, target: e.target, restoreOf: e.of });
  }
  return out;
}

/** The ref of a pane's checkpoint: refs/terminal-delight/turns/<session>/<pane>/<n>-<what>. */
export function turnRef(folder: string, n: number, what: string): string {
  return `${REF_ROOT}/${refSegment(path.basename(path.dirname(folder)))}/${refSegment(path.basename(folder))}/${n}-${what}`;
}

/**
 * The hook's part: a checkpoint of the folder the agent works in, recorded as the start
 * or the end of a turn. Never throws: a folder with no checkpoint is a turn without one.
 */
export async function recordTurn(folder: string, env: Env, kind: 'start' | 'end', info: { cwd: string; prompt?: string; agent: string }, timeoutMs = HOOK_CHECKPOINT_MS): Promise<TurnEntry | undefined> {
  let target: Target | undefined;
  const started = Date.now();
  const stateDir = path.resolve(folder, '..', '..', '..');
  try {
    const entries = readEntries(folder);
    const last = turnsOf(entries).at(-1);
    if (kind === 'end' && (!last || last.end)) return undefined;
    const n = kind === 'end' ? last!.n : (entries.at(-1)?.n ?? 0) + 1;
    target = kind === 'end' ? last!.target : await targetOf(info.cwd, stateDir, env);
    if (!target) return undefined;
    const prompt = info.prompt ? info.prompt.slice(0, PROMPT_CHARS) : undefined;
    const commit = await checkpoint(target, turnRef(folder, n, kind), `terminal-delight turn ${n} ${kind}${prompt ? `\n\n${prompt}` : ''}\n`, env, timeoutMs);
    const entry: TurnEntry = { kind, n, commit, at: new Date().toISOString(), target, agent: info.agent, ...(prompt !== undefined ? { prompt } : {}) };
    appendEntry(folder, entry);
    return entry;
  } catch {
    // A folder that could not be recorded in time is not tried again (the agent would wait each turn).
    if (target && Date.now() - started >= timeoutMs) {
      try {
        fs.mkdirSync(path.join(stateDir, 'shadow'), { recursive: true, mode: 0o700 });
        fs.writeFileSync(skipMark(stateDir, target.top), `${target.top}\nnot recorded within ${timeoutMs} ms\n`);
      } catch {
        // tried again next time
      }
    }
    return undefined;
  }
}

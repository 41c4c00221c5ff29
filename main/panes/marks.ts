/**
 * Shell integration marks in a pane's raw output: OSC 133 (A prompt start, B input start,
 * C command start, D[;status] command end; FinalTerm's semantic prompts, as VS Code,
 * kitty, WezTerm and iTerm2 read them) and OSC 7 (file://host/path, the shell's folder).
 *
 * `MarkScanner` finds them in output chunks of any size, split anywhere (a sequence may
 * straddle chunks, even between ESC and its next character). It runs on every byte a pane
 * prints, so a chunk without "ESC ]" costs one indexOf; an OSC it does not read (an image,
 * a clipboard write) is skipped without being kept past MAX_BODY characters.
 * `promptStep` folds marks into what the shell is doing now. Both are pure; `isLocalHost`
 * reads the machine's name.
 */
import os from 'node:os';

export type Mark =
  | { kind: 'prompt' }
  | { kind: 'input' }
  | { kind: 'command' }
  | { kind: 'done'; exitCode?: number }
  | { kind: 'cwd'; host: string; path: string };

/** An OSC body longer than this is none of ours (paths are at most 4 KiB, percent-encoded x3). */
export const MAX_BODY = 16 * 1024;

const NONE: readonly Mark[] = Object.freeze([]);
const PROMPT: Mark = Object.freeze({ kind: 'prompt' });
const INPUT: Mark = Object.freeze({ kind: 'input' });
const COMMAND: Mark = Object.freeze({ kind: 'command' });
const DONE: Mark = Object.freeze({ kind: 'done' });

/** Where an OSC that starts at `from` ends (BEL, ESC of ST or of a new sequence, CAN, SUB), or -1. */
function oscEnd(data: string, from: number): number {
  for (let i = from; i < data.length; i++) {
    const c = data.charCodeAt(i);
    if (c === 0x07 || c === 0x1b || c === 0x18 || c === 0x1a) return i;
  }
  return -1;
}

export class MarkScanner {
  /** Inside an OSC (after ESC ]). */
  private inOsc = false;
  /** The OSC's body so far, while it is short enough to be one of ours. */
  private body = '';
  private tooLong = false;
  /** The last chunk ended with ESC: its meaning depends on the next chunk's first character. */
  private pendingEsc = false;

  /** The marks completed in this chunk, in order. */
  scan(data: string): readonly Mark[] {
    let out: Mark[] | undefined;
    let i = 0;
    if (this.pendingEsc && data.length > 0) {
      this.pendingEsc = false;
      if (this.inOsc && data.charCodeAt(0) === 0x5c /* \ */) {
        out = this.finish(out);
        i = 1;
      } else {
        // In ground, or an OSC cut short by a new sequence: ESC ] starts an OSC.
        this.inOsc = false;
        if (data.charCodeAt(0) === 0x5d /* ] */) {
          this.begin();
          i = 1;
        }
      }
    }
    for (;;) {
      if (!this.inOsc) {
        const start = data.indexOf('\x1b]', i);
        if (start === -1) {
          if (data.length > i && data.charCodeAt(data.length - 1) === 0x1b) this.pendingEsc = true;
          return out ?? NONE;
        }
        this.begin();
        i = start + 2;
      }
      const end = oscEnd(data, i);
      if (end === -1) {
        this.keep(data, i, data.length);
        return out ?? NONE;
      }
      this.keep(data, i, end);
      const c = data.charCodeAt(end);
      if (c === 0x07) {
        out = this.finish(out);
        i = end + 1;
      } else if (c === 0x1b) {
        if (end + 1 >= data.length) {
          this.pendingEsc = true;
          return out ?? NONE;
        }
        if (data.charCodeAt(end + 1) === 0x5c) {
          out = this.finish(out);
          i = end + 2;
        } else {
          // A new sequence cancels the OSC; look at it from its ESC.
          this.inOsc = false;
          i = end;
        }
      } else {
        this.inOsc = false;
        i = end + 1;
      }
    }
  }

  private begin(): void {
    this.inOsc = true;
    this.body = '';
    this.tooLong = false;
  }

  private keep(data: string, from: number, to: number): void {
    if (this.tooLong || to <= from) return;
    if (this.body.length + (to - from) > MAX_BODY) {
      this.tooLong = true;
      this.body = '';
      return;
    }
    this.body += data.slice(from, to);
  }

  private finish(out: Mark[] | undefined): Mark[] | undefined {
    this.inOsc = false;
    const mark = this.tooLong ? undefined : parseOsc(this.body);
    this.body = '';
    if (!mark) return out;
    (out ??= []).push(mark);
    return out;
  }
}

/** Whether an OSC 7 host names this machine (a shell over ssh reports the remote one's folders). */
export function isLocalHost(host: string): boolean {
  const h = host.toLowerCase();
  return h === '' || h === 'localhost' || h === os.hostname().toLowerCase();
}

/** One OSC body (between ESC ] and its terminator) as a mark, if it is one. */
export function parseOsc(body: string): Mark | undefined {
  if (body.startsWith('133;')) {
    // A letter, then nothing or ';' and options (D: the status first).
    if (body.length > 5 && body.charCodeAt(5) !== 0x3b) return undefined;
    switch (body.charCodeAt(4)) {
      case 0x41: return PROMPT; // A
      case 0x42: return INPUT; // B
      case 0x43: return COMMAND; // C
      case 0x44: { // D
        const end = body.indexOf(';', 6);
        const arg = body.slice(6, end === -1 ? undefined : end);
        return /^-?\d{1,10}$/.test(arg) ? { kind: 'done', exitCode: Number(arg) } : DONE;
      }
      default: return undefined;
    }
  }
  if (body.startsWith('7;')) {
    const m = /^file:\/\/([^/]*)(\/.*)$/.exec(body.slice(2));
    if (!m) return undefined;
    try {
      const path = decodeURIComponent(m[2]!);
      // A folder is a clean absolute path: no NUL or other control characters.
      if (/[\u0000-\u001f\u007f]/.test(path)) return undefined;
      return { kind: 'cwd', host: decodeURIComponent(m[1]!), path };
    } catch {
      return undefined; // not UTF-8 once decoded
    }
  }
  return undefined;
}

/** What a shell integration's marks say the shell is doing. */
export interface PromptState {
  /** A prompt mark has been seen: the shell integrates. */
  integrated: boolean;
  /** 'prompt': the shell shows its prompt or reads a command line; 'command': one runs. */
  phase: 'unknown' | 'prompt' | 'command';
  /** When the running command started (ms, the caller's clock). */
  startedAt?: number;
  /** The last command that ended with a status. */
  lastCommand?: { exitCode: number; durationMs: number; endedAt: number };
}

export const NO_PROMPT: PromptState = Object.freeze({ integrated: false, phase: 'unknown' }) as PromptState;

/** The state after one mark seen at `now` (cwd marks do not change it). */
export function promptStep(state: PromptState, mark: Mark, now: number): PromptState {
  switch (mark.kind) {
    case 'prompt':
    case 'input':
      return state.integrated && state.phase === 'prompt' ? state : { ...withoutStart(state), integrated: true, phase: 'prompt' };
    case 'command':
      return { ...state, phase: 'command', startedAt: now };
    case 'done': {
      // D ends the command; the shell is back at its prompt (running its prompt hooks).
      const next: PromptState = { ...withoutStart(state), phase: state.integrated ? 'prompt' : 'unknown' };
      if (state.phase === 'command' && state.startedAt !== undefined && mark.exitCode !== undefined) {
        next.lastCommand = { exitCode: mark.exitCode, durationMs: Math.max(0, now - state.startedAt), endedAt: now };
      }
      return next;
    }
    default:
      return state;
  }
}

function withoutStart(state: PromptState): PromptState {
  if (state.startedAt === undefined) return state;
  const { startedAt: _, ...rest } = state;
  return rest;
}

/** Whether the marks say a line typed now would be read by the shell as a command. */
export function atPrompt(state: PromptState): boolean {
  return state.integrated && state.phase === 'prompt';
}

/** What one chunk of output changed, by its marks. */
export interface MarkChanges {
  /** A prompt was drawn (A or B). */
  prompt: boolean;
  /** The folder the shell reported, when it changed (and is on this machine). */
  cwd?: string;
  /** A command ended with a status. */
  lastCommand?: NonNullable<PromptState['lastCommand']>;
}

/** A pane's shell integration: the scanner, the prompt state, the reported folder. */
export class ShellMarks {
  private readonly scanner = new MarkScanner();
  private readonly isLocal: (host: string) => boolean;
  state: PromptState = NO_PROMPT;
  /** The folder the shell last reported with OSC 7. */
  cwd: string | undefined;

  /** `isLocal` says whether an OSC 7 host is this machine (a shell over ssh reports the remote one's folders). */
  constructor(isLocal: (host: string) => boolean) {
    this.isLocal = isLocal;
  }

  /** Read a chunk of output (at `now`, ms); undefined when it held no mark. */
  read(data: string, now: number): MarkChanges | undefined {
    const marks = this.scanner.scan(data);
    if (marks.length === 0) return undefined;
    const changes: MarkChanges = { prompt: false };
    for (const mark of marks) {
      if (mark.kind === 'cwd') {
        if (this.isLocal(mark.host) && mark.path !== this.cwd) changes.cwd = this.cwd = mark.path;
        continue;
      }
      if (mark.kind === 'prompt' || mark.kind === 'input') changes.prompt = true;
      const before = this.state.lastCommand;
      this.state = promptStep(this.state, mark, now);
      if (this.state.lastCommand && this.state.lastCommand !== before) changes.lastCommand = this.state.lastCommand;
    }
    return changes;
  }
}

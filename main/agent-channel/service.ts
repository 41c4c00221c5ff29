/**
 * The window side of TDAC 0.2: tails every pane's inbound.jsonl, turns questions and
 * permission prompts into cards whose answers go back to the waiting hook through
 * answers/<id>.json, replies into response cards when the agent sent none (and, for an
 * agent that keeps no JSONL transcript, the ```td blocks of its reply into surfaces),
 * sessions into a known transcript and the pane's agent session, and every event into
 * the pane's agent status. Also the contract's 'agent.new' and 'agent.available'.
 *
 * A card's state is always true: waiting; answered here; answered in the terminal (the
 * tool ran, or the agent said so); cancelled (the agent ended the wait: Esc, or "No" in
 * its own prompt); timed out; invalidated. When the prompt is settled anywhere but the
 * bench, the channel settles the answer file first (answers.ts), so the waiting hook
 * exits at once and a click on the bench can never land as a second answer. A waiting
 * hook the agent killed without a word (SIGKILL: Codex on Esc) is seen gone by its
 * process id, and its card says cancelled.
 *
 * Which agent wrote an event only picks the words on the card (its label, what it cannot
 * do) from the agents table; the bench never knows.
 *
 * Per pane, what was read and what waits is kept in `.agent-channel.json` in the pane
 * folder (written atomically), so a restarted window neither reads an old event as new
 * nor forgets a question a hook still waits on.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AgentStatus, AvailableAgent, PaneInfo, Surface } from '../../preload/contract.ts';
import type { Core } from '../core.ts';
import { findProgram, userPath } from '../panes/env.ts';
import { processAlive } from '../panes/proc.ts';
import type { AgentStatusApi, PaneServiceApi, SettingsApi, SurfaceServiceApi } from '../services.ts';
import { fencedBlocks } from '../surfaces/transcript.ts';
import { isAnswer, readSettlement, settle, type AnswerFile, type Settlement } from './answers.ts';
import { AGENTS, agentOf, isAgentName } from './agents/index.ts';
import { hooksInstalled } from './hook-files.ts';
import {
  parseEvent, permissionCard, permissionCardId, questionCard, questionCardId, replyCard, statusAfter,
  type Asker, type CardState, type TdacEvent,
} from './events.ts';
import { readNewLines, type Unfinished } from './tail.ts';

export const STATE_FILE = '.agent-channel.json';
export const INBOUND_FILE = 'inbound.jsonl';
const STATE_VERSION = 1;
/** Finished cards remembered per pane, to refuse late answers with a reason. */
const FINISHED_KEPT = 200;
/** Finished waits kept whole, to correct a card when later evidence contradicts it. */
const RECENT_KEPT = 50;

type QuestionEvent = Extract<TdacEvent, { type: 'question' }>;
type PermissionEvent = Extract<TdacEvent, { type: 'permission' }>;
type Ended = Exclude<CardState, 'waiting'>;

type Pending =
  | { kind: 'question'; event: QuestionEvent; answers: Record<string, string> }
  | { kind: 'permission'; event: PermissionEvent };

/** `hookDone`: the waiting hook told the agent (an answer or unanswered line), or is gone. */
interface Recent { p: Pending; state: Ended; behavior?: 'allow' | 'deny'; reason?: string; hookDone?: true }

interface Saved {
  v: number;
  offset: number;
  lastPromptAt?: string;
  pending: Record<string, Pending>;
  /** card id → what became of it */
  finished: Record<string, Ended>;
  /** event id → a wait that ended lately, with how */
  recent: Record<string, Recent>;
}

interface PaneChannel {
  paneId: string;
  folder: string;
  saved: Saved;
  /** The line at `saved.offset` read so far, with no newline yet: read on from its end. */
  unfinished?: Unfinished;
  /** card id → the event it answers and which of its questions */
  cards: Map<string, { eventId: string; index: number }>;
  /** When the channel last put a card on this bench (its own cards are not the agent's). */
  ownAt?: number;
  watcher?: fs.FSWatcher;
  idleTimer?: NodeJS.Timeout;
}

export interface AgentChannelOptions {
  core: Pick<Core, 'emit' | 'handle' | 'onDispose'>;
  panes: PaneServiceApi;
  surfaces: SurfaceServiceApi;
  settings?: SettingsApi;
  /** For the agents' config folders ($HOME, $CLAUDE_CONFIG_DIR) and PATH. */
  env?: NodeJS.ProcessEnv;
  /** Fallback poll of inbound.jsonl, besides file-system events. */
  pollMs?: number;
  /** How long `done` lasts before the status becomes `idle`. */
  idleAfterMs?: number;
  uuid?: () => string;
}

const ANSWERING = new Set(['choose', 'answer', 'approve', 'reject']);

/** Old state files said `answered` and `asked_in_terminal`. */
const LEGACY: Record<string, Ended> = { answered: 'answered_here', asked_in_terminal: 'invalidated' };

/** What a hook's reason for giving up makes of its card. */
function endedBy(reason: string): Ended {
  return reason === 'cancelled' ? 'cancelled' : reason === 'timeout' ? 'timed_out' : 'invalidated';
}

/** Why an answer from the bench is refused, by what became of the card. */
const REFUSAL: Record<Ended, string> = {
  answered_here: 'this was answered already — the agent has the answer',
  answered_in_terminal: 'this was answered in the agent\'s terminal already — nothing was sent',
  cancelled: 'this was cancelled in the terminal — nothing was sent',
  timed_out: 'the agent stopped waiting and asks in its terminal now — answer it there',
  invalidated: 'the agent no longer waits for this here — answer in its terminal if it still asks',
};

/**
 * Whether a tool run is the one a permission prompt asked for: the same input, or the
 * prompt's input with more beside (Codex's prompt adds the model's `description`).
 */
function sameInput(asked: unknown, ran: unknown): boolean {
  if (deepEqual(asked, ran)) return true;
  if (!ran || typeof ran !== 'object' || Array.isArray(ran) || !asked || typeof asked !== 'object' || Array.isArray(asked)) return false;
  const keys = Object.keys(ran);
  return keys.length > 0 && keys.every((k) => Object.hasOwn(asked, k) && deepEqual((asked as Record<string, unknown>)[k], (ran as Record<string, unknown>)[k]));
}

/** A finished wait whose card says the agent asks in its terminal (the bench was closed, no window, timed out). */
function askedInTerminal(r: Recent | undefined): boolean {
  return !!r && (r.state === 'timed_out' || (r.state === 'invalidated' && (r.reason === 'bench_closed' || r.reason === 'no_window')));
}

/** A finished wait that already says how it was answered, as `behavior` says too (none said: any). */
function settledAlready(r: Recent | undefined, behavior: 'allow' | 'deny' | undefined): boolean {
  if (!r || (r.state !== 'answered_here' && r.state !== 'answered_in_terminal')) return false;
  return !behavior || !r.behavior || r.behavior === behavior;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b as object, k) && deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

export class AgentChannel implements AgentStatusApi {
  private readonly opts: AgentChannelOptions;
  private readonly channels = new Map<string, PaneChannel>();
  private readonly unsubscribe: Array<() => void> = [];
  private readonly timer: NodeJS.Timeout;
  private disposed = false;

  constructor(opts: AgentChannelOptions) {
    this.opts = opts;
    const { panes, surfaces } = opts;
    this.unsubscribe.push(
      panes.onCreated((pane) => this.attach(pane.id)),
      panes.onRemoved((paneId) => this.detach(paneId)),
      surfaces.intercept((paneId, surface, action, target, comment, phase) =>
        phase === 'check' ? this.check(paneId, surface, action, target, comment) : this.intercept(paneId, surface, action, target, comment)),
    );
    for (const pane of panes.list()) this.attach(pane.id);
    this.timer = setInterval(() => this.pollAll(), opts.pollMs ?? 1000);
    this.timer.unref?.();
  }

  /** Reads every pane's new events now (the poll and file-system events call this too), and sees to hooks that went away. */
  pollAll(): void {
    for (const ch of this.channels.values()) {
      this.drain(ch);
      this.checkHooks(ch);
    }
  }

  // ───────────── panes ─────────────

  private attach(paneId: string): void {
    if (this.disposed || this.channels.has(paneId)) return;
    let folder: string;
    try {
      folder = this.opts.panes.folder(paneId);
      fs.mkdirSync(folder, { recursive: true });
    } catch {
      return;
    }
    const saved = this.load(folder);
    const ch: PaneChannel = { paneId, folder, saved, cards: new Map() };
    for (const [eventId, p] of Object.entries(saved.pending)) this.indexCards(ch, eventId, p);
    this.channels.set(paneId, ch);
    try {
      ch.watcher = fs.watch(folder, (_type, name) => {
        if (!name || name === INBOUND_FILE) this.drain(ch);
      });
      ch.watcher.on('error', () => ch.watcher?.close());
    } catch {
      // the poll still reads it
    }
    this.drain(ch);
  }

  private detach(paneId: string): void {
    const ch = this.channels.get(paneId);
    if (!ch) return;
    ch.watcher?.close();
    if (ch.idleTimer) clearTimeout(ch.idleTimer);
    this.channels.delete(paneId);
  }

  private load(folder: string): Saved {
    try {
      const s = JSON.parse(fs.readFileSync(path.join(folder, STATE_FILE), 'utf8')) as Saved;
      if (s && s.v === STATE_VERSION && Number.isInteger(s.offset) && s.offset >= 0) {
        const finished = Object.fromEntries(Object.entries(s.finished ?? {}).map(([k, v]) => [k, LEGACY[v] ?? v]));
        return { v: STATE_VERSION, offset: s.offset, lastPromptAt: s.lastPromptAt, pending: s.pending ?? {}, finished, recent: s.recent ?? {} };
      }
    } catch {
      // none yet, or unreadable: start at the end of what is there, never re-reading old events
    }
    let offset = 0;
    try {
      offset = fs.statSync(path.join(folder, INBOUND_FILE)).size;
    } catch {
      offset = 0;
    }
    return { v: STATE_VERSION, offset, pending: {}, finished: {}, recent: {} };
  }

  private save(ch: PaneChannel): void {
    const keys = Object.keys(ch.saved.finished);
    if (keys.length > FINISHED_KEPT) for (const k of keys.slice(0, keys.length - FINISHED_KEPT)) delete ch.saved.finished[k];
    const recent = Object.keys(ch.saved.recent);
    if (recent.length > RECENT_KEPT) for (const k of recent.slice(0, recent.length - RECENT_KEPT)) delete ch.saved.recent[k];
    const file = path.join(ch.folder, STATE_FILE);
    const tmp = `${file}.${crypto.randomBytes(4).toString('hex')}.tmp`;
    try {
      fs.writeFileSync(tmp, JSON.stringify(ch.saved), { mode: 0o600 });
      fs.renameSync(tmp, file);
    } catch {
      fs.rmSync(tmp, { force: true });
    }
  }

  // ───────────── events ─────────────

  private drain(ch: PaneChannel): void {
    if (this.disposed || !this.channels.has(ch.paneId)) return;
    const read = readNewLines(path.join(ch.folder, INBOUND_FILE), ch.saved.offset, ch.unfinished ? { unfinished: ch.unfinished } : {});
    ch.unfinished = read.unfinished;
    if (read.offset === ch.saved.offset && read.lines.length === 0) return;
    ch.saved.offset = read.offset;
    for (const line of read.lines) {
      const event = parseEvent(line);
      if (!event) continue;
      try {
        this.apply(ch, event);
      } catch {
        // one bad event never stops the channel
      }
    }
    this.save(ch);
  }

  private apply(ch: PaneChannel, e: TdacEvent): void {
    const { surfaces, panes } = this.opts;
    let next = statusAfter(e);
    switch (e.type) {
      case 'session': {
        // A new session: no hook of an earlier one still waits.
        for (const id of Object.keys(ch.saved.pending)) this.finish(ch, id, 'invalidated', { reason: 'new_session' });
        if (e.transcript_path && path.isAbsolute(e.transcript_path)) surfaces.watchTranscript(ch.paneId, e.transcript_path);
        const name = e.agent ?? 'claude';
        if (isAgentName(name) && e.session_id) {
          const known = panes.get(ch.paneId)?.agentCli;
          if (known?.name !== name || known.sessionId !== e.session_id) panes.patch(ch.paneId, { agentCli: { name, sessionId: e.session_id } });
        }
        break;
      }
      case 'prompt':
        ch.saved.lastPromptAt = e.at;
        // A new prompt: whatever waited was settled in the terminal (or dropped) first.
        for (const id of Object.keys(ch.saved.pending)) this.finish(ch, id, 'invalidated', { reason: 'new_prompt' });
        break;
      case 'question':
      case 'permission': {
        if (ch.saved.pending[e.id] || this.finishedEvent(ch, e)) return;
        const p: Pending = e.type === 'question' ? { kind: 'question', event: e, answers: {} } : { kind: 'permission', event: e };
        ch.saved.pending[e.id] = p;
        this.indexCards(ch, e.id, p);
        this.showCards(ch, p, 'waiting');
        // The hook may have given up before the window saw the question.
        const s = readSettlement(ch.folder, e.id);
        if (s && 'closed' in s) this.finish(ch, e.id, endedBy(s.closed), { reason: s.closed });
        break;
      }
      case 'answer': {
        const p = ch.saved.pending[e.of];
        if (p) {
          if (p.kind === 'question' && e.answers) p.answers = { ...p.answers, ...e.answers };
          this.finish(ch, e.of, e.via === 'terminal' ? 'answered_in_terminal' : 'answered_here', { behavior: e.behavior });
        } else if (e.via === 'terminal') {
          const r = ch.saved.recent[e.of];
          // The agent's own word of what was already settled as it says (OpenCode's permission.replied
          // after the bench's reply, which can reach the file after the turn's end): the hook's
          // answer already said the agent went on; this says nothing of what it does now.
          if (settledAlready(r, e.behavior)) next = undefined;
          // Asked in the terminal, or answered there otherwise than on the bench, first: the terminal's answer is the one the agent took.
          else if (askedInTerminal(r) || r?.state === 'answered_here') this.correct(ch, e.of, 'answered_in_terminal', e.behavior);
        }
        if (e.via !== 'terminal' && ch.saved.recent[e.of]) ch.saved.recent[e.of].hookDone = true;
        break;
      }
      case 'unanswered': {
        if (ch.saved.recent[e.of]) ch.saved.recent[e.of].hookDone = true;
        if (ch.saved.pending[e.of]) this.finish(ch, e.of, endedBy(e.reason), { reason: e.reason });
        // The bench's answer was written, but the agent ended the wait before the hook could hand it over.
        else if (e.reason === 'cancelled' && ch.saved.recent[e.of]?.state === 'answered_here') this.correct(ch, e.of, 'cancelled');
        if (e.reason === 'cancelled') next = { status: 'idle', detail: 'cancelled in the terminal' };
        else next = { status: 'blocked', detail: 'asked in the terminal' };
        break;
      }
      case 'tool':
        this.toolRan(ch, e);
        break;
      case 'reply': {
        // The agent finished its turn: what still waited was answered in its terminal.
        for (const id of Object.keys(ch.saved.pending)) this.finish(ch, id, 'answered_in_terminal');
        const agent = AGENTS[isAgentName(e.agent) ? e.agent : 'claude'];
        // No transcript to read blocks from: the reply's own ```td blocks are the agent's surfaces.
        if (!agent.can.transcript) for (const block of fencedBlocks(e.text)) surfaces.ingest(ch.paneId, block, 'transcript');
        const since = Math.max(Date.parse(ch.saved.lastPromptAt ?? '') || 0, (ch.ownAt ?? 0) + 1);
        if (!surfaces.sentSince(ch.paneId, new Date(since).toISOString())) this.ingest(ch, replyCard(e));
        break;
      }
    }
    if (next) this.setStatus(ch, next.status, next.detail);
  }

  /** A tool ran: the question it was, or the permission prompt for it, was answered in the terminal. */
  private toolRan(ch: PaneChannel, e: Extract<TdacEvent, { type: 'tool' }>): void {
    const same = (p: PermissionEvent) => (e.session_id === undefined || p.session_id === undefined || p.session_id === e.session_id);
    const matches = (p: PermissionEvent) => same(p) && (p.tool_use_id && e.tool_use_id
      ? p.tool_use_id === e.tool_use_id
      : !p.answerable || (p.tool_name === e.tool_name && sameInput(p.tool_input, e.tool_input)));
    if (e.tool_use_id && ch.saved.pending[e.tool_use_id]?.kind === 'question') {
      const p = ch.saved.pending[e.tool_use_id] as Extract<Pending, { kind: 'question' }>;
      if (e.answers) p.answers = { ...p.answers, ...e.answers };
      this.finish(ch, e.tool_use_id, 'answered_in_terminal');
      return;
    }
    const waiting = Object.entries(ch.saved.pending).find(([, p]) => p.kind === 'permission' && matches(p.event));
    if (waiting) {
      this.finish(ch, waiting[0], 'answered_in_terminal', { behavior: 'allow' });
      return;
    }
    // The bench said deny, yet the tool ran: the terminal's answer landed first. Or the
    // card said the agent asks in its terminal (bench closed, timed out): it was answered there.
    const answered = Object.entries(ch.saved.recent).find(([, r]) => r.p.kind === 'permission' && matches(r.p.event)
      && ((r.state === 'answered_here' && r.behavior === 'deny') || askedInTerminal(r)));
    if (answered) this.correct(ch, answered[0], 'answered_in_terminal', 'allow');
  }

  /**
   * Waits whose hook process is gone without a word (an agent that kills its hook with
   * SIGKILL, as Codex does on Esc): the agent no longer waits, so the card says cancelled
   * and the status goes back to idle. A bench answer the dead hook never handed over is
   * corrected the same way.
   */
  private checkHooks(ch: PaneChannel): void {
    const gone = (p: Pending) => p.event.hook_pid !== undefined && !processAlive(p.event.hook_pid);
    const pending = Object.entries(ch.saved.pending).filter(([, p]) => gone(p)).map(([id]) => id);
    const recent = Object.entries(ch.saved.recent).filter(([, r]) => !r.hookDone && r.state === 'answered_here' && gone(r.p)).map(([id]) => id);
    if (pending.length === 0 && recent.length === 0) return;
    this.drain(ch); // its last lines, written before it went, count first
    let ended = false;
    for (const id of pending) {
      if (!ch.saved.pending[id]) continue;
      this.finish(ch, id, 'cancelled', { reason: 'hook_gone' });
      ch.saved.recent[id].hookDone = true;
      ended = true;
    }
    for (const id of recent) {
      const r = ch.saved.recent[id];
      if (!r || r.hookDone) continue;
      r.hookDone = true;
      this.correct(ch, id, 'cancelled');
      ended = true;
    }
    this.save(ch);
    if (ended) this.setStatus(ch, 'idle', 'cancelled in the terminal');
  }

  private finishedEvent(ch: PaneChannel, e: QuestionEvent | PermissionEvent): boolean {
    const first = e.type === 'question' ? questionCardId(e.id, 0, e.questions.length) : permissionCardId(e.id);
    return first in ch.saved.finished;
  }

  private indexCards(ch: PaneChannel, eventId: string, p: Pending): void {
    if (p.kind === 'question') {
      p.event.questions.forEach((_q, i) => ch.cards.set(questionCardId(eventId, i, p.event.questions.length), { eventId, index: i }));
    } else {
      ch.cards.set(permissionCardId(eventId), { eventId, index: 0 });
    }
  }

  /** Who asks, in the card's words: the agent's label, and what its hook cannot do. */
  private asker(p: Pending): Asker {
    const agent = AGENTS[isAgentName(p.event.agent) ? p.event.agent : 'claude'];
    const cannot = p.kind === 'permission' && !p.event.answerable;
    return { label: agent.label, ...(cannot ? { cannotAnswer: agent.cannotAnswer ?? `${agent.label}'s hook cannot take an answer from the bench: answer in its terminal.` } : {}) };
  }

  private showCards(ch: PaneChannel, p: Pending, state: CardState, behavior?: string, reason?: string): void {
    const asker = this.asker(p);
    if (p.kind === 'question') {
      p.event.questions.forEach((q, i) => {
        const answer = p.answers[q.question];
        this.ingest(ch, questionCard(p.event, i, answer !== undefined && state === 'waiting' ? 'answered_here' : state, answer, asker, reason));
      });
    } else {
      this.ingest(ch, permissionCard(p.event, state, behavior, asker, reason));
    }
  }

  private ingest(ch: PaneChannel, doc: Record<string, unknown>): void {
    try {
      this.opts.surfaces.ingest(ch.paneId, doc, 'agent');
    } finally {
      ch.ownAt = Date.now();
    }
  }

  /**
   * The wait for this event is over: its cards say how, and late answers are refused.
   * Settled anywhere but the bench, the answer file is settled as retired first, so the
   * waiting hook exits at once and no click can land as a second answer.
   */
  private finish(ch: PaneChannel, eventId: string, state: Ended, how: { behavior?: 'allow' | 'deny'; reason?: string } = {}): void {
    const p = ch.saved.pending[eventId];
    if (!p) return;
    if (state === 'answered_in_terminal' || state === 'cancelled' || state === 'invalidated') {
      try {
        const got = settle(ch.folder, eventId, { retired: state, at: new Date().toISOString() });
        // The bench's answer was there first (written a moment before the evidence arrived).
        if (!got.won && isAnswer(got.existing) && !('pass' in got.existing)) {
          state = 'answered_here';
          if ('behavior' in got.existing) how = { ...how, behavior: got.existing.behavior };
        }
      } catch {
        // the pane folder is gone: nothing waits there any more
      }
    }
    delete ch.saved.pending[eventId];
    for (const [cardId, ref] of [...ch.cards]) {
      if (ref.eventId !== eventId) continue;
      ch.cards.delete(cardId);
      ch.saved.finished[cardId] = state;
    }
    ch.saved.recent[eventId] = { p, state, ...(how.behavior ? { behavior: how.behavior } : {}), ...(how.reason ? { reason: how.reason } : {}) };
    this.showCards(ch, p, state, how.behavior, how.reason);
  }

  /** Later evidence contradicts how a finished wait was shown: say what really happened. */
  private correct(ch: PaneChannel, eventId: string, state: Ended, behavior?: 'allow' | 'deny'): void {
    const r = ch.saved.recent[eventId];
    if (!r) return;
    r.state = state;
    delete r.reason;
    if (behavior) r.behavior = behavior;
    const ids = r.p.kind === 'question' ? r.p.event.questions.map((_q, i, all) => questionCardId(eventId, i, all.length)) : [permissionCardId(eventId)];
    for (const id of ids) ch.saved.finished[id] = state;
    this.showCards(ch, r.p, state, r.behavior);
  }

  // ───────────── answers from the bench ─────────────

  /**
   * The waiting question or permission an answering action on this card is for, or
   * the verdict when there is none (not ours: `handled: false`; finished: a refusal).
   */
  private pendingFor(paneId: string, surface: Surface, action: string):
    | { ch: PaneChannel; ref: { eventId: string; index: number }; p: Pending }
    | { verdict: { handled: boolean; error?: string } } {
    const notOurs = { verdict: { handled: false } };
    if (!ANSWERING.has(action)) return notOurs;
    const ch = this.channels.get(paneId);
    if (!ch) return notOurs;
    const ref = ch.cards.get(surface.id);
    if (!ref) {
      const was = ch.saved.finished[surface.id];
      return was ? { verdict: { handled: true, error: REFUSAL[was] } } : notOurs;
    }
    const p = ch.saved.pending[ref.eventId];
    return p ? { ch, ref, p } : notOurs;
  }

  /** Whether an answer would be refused, without changing anything (before the action is recorded). */
  private check(paneId: string, surface: Surface, action: string, target?: string, comment?: string): { handled: boolean; error?: string } {
    const found = this.pendingFor(paneId, surface, action);
    if ('verdict' in found) return found.verdict;
    const { ch, ref, p } = found;
    const settled = readSettlement(ch.folder, ref.eventId);
    if (settled) return { handled: true, error: this.refusalFor(settled) };
    if (p.kind === 'question') {
      if (action === 'choose' && !target?.trim()) return { handled: true, error: 'choose needs an option as its target — pick one and send again' };
      if (action === 'answer' && !comment?.trim()) return { handled: true, error: 'answer needs your text as its comment — write it and send again' };
    } else {
      const cannot = this.asker(p).cannotAnswer;
      if (cannot) return { handled: true, error: cannot };
      if (action === 'choose' && target !== 'allow' && target !== 'deny') return { handled: true, error: 'choose "allow" or "deny" for a permission prompt' };
    }
    // ours: the answer goes to the waiting hook, not into the terminal
    return { handled: true };
  }

  private refusalFor(s: Settlement): string {
    if ('closed' in s) return REFUSAL[endedBy(s.closed)];
    if ('retired' in s) return REFUSAL[s.retired] ?? REFUSAL.invalidated;
    return REFUSAL.answered_here;
  }

  private intercept(paneId: string, surface: Surface, action: string, target?: string, comment?: string): { handled: boolean; error?: string } {
    const found = this.pendingFor(paneId, surface, action);
    if ('verdict' in found) return found.verdict;
    const { ch, ref, p } = found;
    const result = p.kind === 'question'
      ? this.answerQuestion(ch, ref.eventId, p, ref.index, action, target, comment)
      : this.answerPermission(ch, ref.eventId, p, action, target, comment);
    this.save(ch);
    return result;
  }

  private answerQuestion(ch: PaneChannel, eventId: string, p: Extract<Pending, { kind: 'question' }>, index: number, action: string, target?: string, comment?: string): { handled: boolean; error?: string } {
    const q = p.event.questions[index];
    let value: string | undefined;
    if (action === 'choose') value = target?.trim();
    else if (action === 'answer') value = comment?.trim();
    else return { handled: false };
    if (!value) return { handled: true, error: action === 'choose' ? 'choose needs an option as its target — pick one and send again' : 'answer needs your text as its comment — write it and send again' };
    p.answers[q.question] = value;
    const missing = p.event.questions.filter((x) => p.answers[x.question] === undefined);
    if (missing.length > 0) {
      this.ingest(ch, questionCard(p.event, index, 'answered_here', value, this.asker(p)));
      return { handled: true };
    }
    return this.send(ch, eventId, { answers: p.answers });
  }

  private answerPermission(ch: PaneChannel, eventId: string, p: Extract<Pending, { kind: 'permission' }>, action: string, target?: string, comment?: string): { handled: boolean; error?: string } {
    const cannot = this.asker(p).cannotAnswer;
    if (cannot) return { handled: true, error: cannot };
    let behavior: 'allow' | 'deny';
    if (action === 'approve') behavior = target === 'deny' ? 'deny' : 'allow';
    else if (action === 'reject') behavior = 'deny';
    else if (action === 'choose' && (target === 'allow' || target === 'deny')) behavior = target;
    else return { handled: true, error: 'choose "allow" or "deny" for a permission prompt' };
    const message = behavior === 'deny' ? comment?.trim() || `Denied on the Terminal Delight workbench (${p.event.tool_name}).` : undefined;
    return this.send(ch, eventId, message ? { behavior, message } : { behavior });
  }

  /** Settles the wait with the bench's answer, unless something settled it first. */
  private send(ch: PaneChannel, eventId: string, answer: AnswerFile): { handled: boolean; error?: string } {
    let got: ReturnType<typeof settle>;
    try {
      got = settle(ch.folder, eventId, answer);
    } catch (e) {
      return { handled: true, error: `could not write the answer for the agent (${(e as Error).message}) — answer in the terminal` };
    }
    if (!got.won) {
      const s = got.existing;
      if (s && 'closed' in s) this.finish(ch, eventId, endedBy(s.closed), { reason: s.closed });
      else if (s && 'retired' in s) this.finish(ch, eventId, s.retired);
      return { handled: true, error: s ? this.refusalFor(s) : REFUSAL.answered_here };
    }
    this.finish(ch, eventId, 'answered_here', { behavior: 'behavior' in answer ? answer.behavior : undefined });
    return { handled: true };
  }

  // ───────────── status ─────────────

  set(paneId: string, status: AgentStatus, detail?: string): void {
    const ch = this.channels.get(paneId);
    if (ch) this.setStatus(ch, status, detail);
  }

  private setStatus(ch: PaneChannel, status: AgentStatus, detail?: string): void {
    const { panes, core } = this.opts;
    const pane = panes.get(ch.paneId);
    if (!pane) return;
    // blocked stays blocked while anything still waits on the bench
    if (status !== 'blocked' && Object.keys(ch.saved.pending).length > 0) {
      status = 'blocked';
      detail = pane.agent?.detail ?? detail;
    }
    if (ch.idleTimer) {
      clearTimeout(ch.idleTimer);
      ch.idleTimer = undefined;
    }
    const prev = pane.agent;
    if (!prev || prev.status !== status || prev.detail !== detail) {
      const agent: NonNullable<PaneInfo['agent']> = { status, since: prev?.status === status ? prev.since : new Date().toISOString() };
      if (detail) agent.detail = detail;
      panes.patch(ch.paneId, { agent });
      if (status !== prev?.status && (status === 'blocked' || status === 'done')) {
        const who = pane.title || 'The agent';
        core.emit('notify', {
          title: status === 'blocked' ? `${who} needs you` : `${who} is done`,
          body: detail ?? (status === 'blocked' ? 'It is waiting for an answer.' : 'It finished its turn.'),
          paneId: ch.paneId,
        });
      }
    }
    if (status === 'done') {
      ch.idleTimer = setTimeout(() => {
        ch.idleTimer = undefined;
        if (this.opts.panes.get(ch.paneId)?.agent?.status === 'done') this.setStatus(ch, 'idle');
      }, this.opts.idleAfterMs ?? 10 * 60_000);
      ch.idleTimer.unref?.();
    }
  }

  // ───────────── new agent pane ─────────────

  /**
   * Starts the agent command (or settings.agentCommand, or `claude`) in a new pane. A
   * known agent starts with its own session flag where it takes one (Claude Code, Gemini
   * CLI: `--session-id <uuid>`), so its session (and Claude Code's transcript) is known
   * from the first second.
   */
  newAgentPane(req: { command?: string[]; cwd?: string; splitOf?: string; direction?: 'right' | 'down' }): PaneInfo {
    const { panes, surfaces, settings } = this.opts;
    let command = req.command;
    if (command !== undefined && (!Array.isArray(command) || command.length === 0 || command.some((a) => typeof a !== 'string') || !command[0])) {
      throw new Error('the agent command must be a list of words with the program first, like ["claude"] — fix it and try again');
    }
    if (!command) {
      const configured = settings?.get().agentCommand;
      command = Array.isArray(configured) && configured.length > 0 && configured[0] ? configured : ['claude'];
    }
    const agent = agentOf(command);
    const { argv, sessionId } = agent ? agent.startArgv(command, this.opts.uuid?.() ?? crypto.randomUUID()) : { argv: [...command], sessionId: undefined };
    // Beside a pane, in that pane's folder (the service's own folder is no project).
    const cwd = req.cwd ?? (req.splitOf ? panes.get(req.splitOf)?.cwd : undefined);
    const pane = panes.create({ kind: 'agent', command: argv, cwd, splitOf: req.splitOf, direction: req.direction });
    if (!agent) return pane;
    panes.patch(pane.id, { agentCli: { name: agent.name, ...(sessionId ? { sessionId } : {}) } });
    if (sessionId && agent.transcriptPath) {
      let cwd = pane.cwd;
      try {
        cwd = fs.realpathSync(cwd);
      } catch {
        // the folder is gone: keep the path as given
      }
      surfaces.watchTranscript(pane.id, agent.transcriptPath(cwd, sessionId, this.opts.env ?? process.env));
    }
    return panes.get(pane.id) ?? pane;
  }

  /**
   * Every agent the app knows, for "+ Agent": the one settings.agentCommand starts first
   * (with that command and its options), then those found on PATH, then the others with
   * how to install them; the table's order within each. `splitOf`: the pane the new agent
   * would start beside, in its folder (whether its hooks are installed may depend on it: a project's).
   */
  available(req: { splitOf?: unknown } = {}): AvailableAgent[] {
    const env = this.opts.env ?? process.env;
    // What the person installed: not this app's own node_modules/.bin (panes/env.ts).
    const vars = { ...Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => typeof e[1] === 'string')), PATH: userPath(env).join(path.delimiter) };
    const cwd = env.HOME && fs.existsSync(env.HOME) ? env.HOME : process.cwd();
    const configured = this.opts.settings?.get().agentCommand ?? [];
    const preferred = agentOf(configured)?.name;
    const folder = typeof req.splitOf === 'string' ? this.opts.panes.get(req.splitOf)?.cwd : undefined;
    const hooked = hooksInstalled(env, folder);
    const all: AvailableAgent[] = Object.values(AGENTS).map((agent) => {
      const mine = agent.name === preferred;
      const programs = mine ? [configured[0], ...agent.programs] : agent.programs;
      const mark = mine ? { configured: true as const } : {};
      for (const program of programs) {
        const where = findProgram(program, vars, cwd);
        if (where) return { name: agent.name, label: agent.label, command: mine ? [...configured] : [program], installed: true, path: where, hooks: hooked.has(agent.name), ...mark };
      }
      return { name: agent.name, label: agent.label, command: mine ? [...configured] : [agent.programs[0]], installed: false, install: agent.install, ...mark };
    });
    const rank = (a: AvailableAgent) => (a.configured ? 0 : a.installed ? 1 : 2);
    return all.sort((a, b) => rank(a) - rank(b));
  }

  dispose(): void {
    this.disposed = true;
    clearInterval(this.timer);
    for (const u of this.unsubscribe.splice(0)) u();
    for (const id of [...this.channels.keys()]) this.detach(id);
  }
}

/** Installs the agent channel: its service, and the 'agent.new' and 'agent.available' requests. */
export function installAgentChannel(opts: AgentChannelOptions): AgentChannel {
  const channel = new AgentChannel(opts);
  opts.core.handle('agent.new', (req) => channel.newAgentPane(req));
  opts.core.handle('agent.available', (req) => channel.available(req ?? {}));
  opts.core.onDispose(() => channel.dispose());
  return channel;
}

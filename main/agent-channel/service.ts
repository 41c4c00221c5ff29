/**
 * The window side of TDAC 0.2: tails every pane's inbound.jsonl, turns questions and
 * permission prompts into cards whose answers go back to the waiting hook through
 * answers/<id>.json, replies into response cards when the agent sent none, sessions into
 * a known transcript, and every event into the pane's agent status. Also the contract's
 * 'agent.new' request: a new pane running the agent command.
 *
 * Per pane, what was read and what waits is kept in `.agent-channel.json` in the pane
 * folder (written atomically), so a restarted window neither reads an old event as new
 * nor forgets a question a hook still waits on.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AgentStatus, PaneInfo, Surface } from '../../preload/contract.ts';
import type { Core } from '../core.ts';
import type { AgentStatusApi, PaneServiceApi, SettingsApi, SurfaceServiceApi } from '../services.ts';
import { hasAnswer, isClosed, writeAnswer, type AnswerFile } from './answers.ts';
import { statusAfter, transcriptPath, withSessionId } from './claude.ts';
import {
  parseEvent, permissionCard, permissionCardId, questionCard, questionCardId, replyCard,
  type CardState, type TdacEvent,
} from './events.ts';
import { readNewLines } from './tail.ts';

export const STATE_FILE = '.agent-channel.json';
export const INBOUND_FILE = 'inbound.jsonl';
const STATE_VERSION = 1;
/** Finished cards remembered per pane, to refuse late answers with a reason. */
const FINISHED_KEPT = 200;

type QuestionEvent = Extract<TdacEvent, { type: 'question' }>;
type PermissionEvent = Extract<TdacEvent, { type: 'permission' }>;

type Pending =
  | { kind: 'question'; event: QuestionEvent; answers: Record<string, string> }
  | { kind: 'permission'; event: PermissionEvent };

interface Saved {
  v: number;
  offset: number;
  lastPromptAt?: string;
  pending: Record<string, Pending>;
  /** card id → what became of it */
  finished: Record<string, Exclude<CardState, 'waiting'>>;
}

interface PaneChannel {
  paneId: string;
  folder: string;
  saved: Saved;
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
  /** For Claude Code's config folder ($HOME, $CLAUDE_CONFIG_DIR). */
  env?: NodeJS.ProcessEnv;
  /** Fallback poll of inbound.jsonl, besides file-system events. */
  pollMs?: number;
  /** How long `done` lasts before the status becomes `idle`. */
  idleAfterMs?: number;
  uuid?: () => string;
}

const ANSWERING = new Set(['choose', 'answer', 'approve', 'reject']);

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

  /** Reads every pane's new events now (the poll and file-system events call this too). */
  pollAll(): void {
    for (const ch of this.channels.values()) this.drain(ch);
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
        return { v: STATE_VERSION, offset: s.offset, lastPromptAt: s.lastPromptAt, pending: s.pending ?? {}, finished: s.finished ?? {} };
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
    return { v: STATE_VERSION, offset, pending: {}, finished: {} };
  }

  private save(ch: PaneChannel): void {
    const keys = Object.keys(ch.saved.finished);
    if (keys.length > FINISHED_KEPT) for (const k of keys.slice(0, keys.length - FINISHED_KEPT)) delete ch.saved.finished[k];
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
    const read = readNewLines(path.join(ch.folder, INBOUND_FILE), ch.saved.offset);
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
    const { surfaces } = this.opts;
    switch (e.type) {
      case 'session':
        // A new session: no hook of an earlier one still waits.
        for (const id of Object.keys(ch.saved.pending)) this.finish(ch, id, 'asked_in_terminal');
        if (e.transcript_path && path.isAbsolute(e.transcript_path)) surfaces.watchTranscript(ch.paneId, e.transcript_path);
        break;
      case 'prompt':
        ch.saved.lastPromptAt = e.at;
        break;
      case 'question':
      case 'permission': {
        if (ch.saved.pending[e.id] || this.finishedEvent(ch, e)) return;
        const p: Pending = e.type === 'question' ? { kind: 'question', event: e, answers: {} } : { kind: 'permission', event: e };
        ch.saved.pending[e.id] = p;
        this.indexCards(ch, e.id, p);
        this.showCards(ch, p, 'waiting');
        // The hook may have given up before the window saw the question.
        if (isClosed(ch.folder, e.id) && !hasAnswer(ch.folder, e.id)) this.finish(ch, e.id, 'asked_in_terminal');
        break;
      }
      case 'answer': {
        const p = ch.saved.pending[e.of];
        if (p) {
          if (p.kind === 'question' && e.answers) p.answers = { ...p.answers, ...e.answers };
          this.finish(ch, e.of, 'answered', e.behavior);
        }
        break;
      }
      case 'unanswered':
        if (ch.saved.pending[e.of]) this.finish(ch, e.of, 'asked_in_terminal');
        break;
      case 'reply': {
        const since = Math.max(Date.parse(ch.saved.lastPromptAt ?? '') || 0, (ch.ownAt ?? 0) + 1);
        if (!surfaces.sentSince(ch.paneId, new Date(since).toISOString())) this.ingest(ch, replyCard(e));
        break;
      }
    }
    const next = statusAfter(e);
    if (next) this.setStatus(ch, next.status, next.detail);
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

  private showCards(ch: PaneChannel, p: Pending, state: CardState, behavior?: string): void {
    if (p.kind === 'question') {
      p.event.questions.forEach((q, i) => {
        const answer = p.answers[q.question];
        this.ingest(ch, questionCard(p.event, i, answer !== undefined && state === 'waiting' ? 'answered' : state, answer));
      });
    } else {
      this.ingest(ch, permissionCard(p.event, state, behavior));
    }
  }

  private ingest(ch: PaneChannel, doc: Record<string, unknown>): void {
    try {
      this.opts.surfaces.ingest(ch.paneId, doc, 'agent');
    } finally {
      ch.ownAt = Date.now();
    }
  }

  /** The wait for this event is over: its cards say how, and late answers are refused. */
  private finish(ch: PaneChannel, eventId: string, state: Exclude<CardState, 'waiting'>, behavior?: string): void {
    const p = ch.saved.pending[eventId];
    if (!p) return;
    delete ch.saved.pending[eventId];
    for (const [cardId, ref] of [...ch.cards]) {
      if (ref.eventId !== eventId) continue;
      ch.cards.delete(cardId);
      ch.saved.finished[cardId] = state;
    }
    this.showCards(ch, p, state, behavior);
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
      if (was === 'asked_in_terminal') return { verdict: { handled: true, error: 'the agent stopped waiting and asked this in its terminal — answer it there' } };
      if (was === 'answered') return { verdict: { handled: true, error: 'this was answered already — the agent has the answer' } };
      return notOurs;
    }
    const p = ch.saved.pending[ref.eventId];
    return p ? { ch, ref, p } : notOurs;
  }

  /** Whether an answer would be refused, without changing anything (before the action is recorded). */
  private check(paneId: string, surface: Surface, action: string, target?: string, comment?: string): { handled: boolean; error?: string } {
    const found = this.pendingFor(paneId, surface, action);
    if ('verdict' in found) return found.verdict;
    const { ch, ref, p } = found;
    if (isClosed(ch.folder, ref.eventId)) return { handled: true, error: 'the agent stopped waiting and asked this in its terminal — answer it there' };
    if (p.kind === 'question') {
      if (action === 'choose' && !target?.trim()) return { handled: true, error: 'choose needs an option as its target — pick one and send again' };
      if (action === 'answer' && !comment?.trim()) return { handled: true, error: 'answer needs your text as its comment — write it and send again' };
    } else if (action === 'choose' && target !== 'allow' && target !== 'deny') {
      return { handled: true, error: 'choose "allow" or "deny" for a permission prompt' };
    }
    // ours: the answer goes to the waiting hook, not into the terminal
    return { handled: true };
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
      this.ingest(ch, questionCard(p.event, index, 'answered', value));
      return { handled: true };
    }
    return this.send(ch, eventId, { answers: p.answers });
  }

  private answerPermission(ch: PaneChannel, eventId: string, p: Extract<Pending, { kind: 'permission' }>, action: string, target?: string, comment?: string): { handled: boolean; error?: string } {
    let behavior: 'allow' | 'deny';
    if (action === 'approve') behavior = target === 'deny' ? 'deny' : 'allow';
    else if (action === 'reject') behavior = 'deny';
    else if (action === 'choose' && (target === 'allow' || target === 'deny')) behavior = target;
    else return { handled: true, error: 'choose "allow" or "deny" for a permission prompt' };
    const message = behavior === 'deny' ? comment?.trim() || `Denied on the Terminal Delight workbench (${p.event.tool_name}).` : undefined;
    return this.send(ch, eventId, message ? { behavior, message } : { behavior });
  }

  private send(ch: PaneChannel, eventId: string, answer: AnswerFile): { handled: boolean; error?: string } {
    let written: boolean;
    try {
      written = writeAnswer(ch.folder, eventId, answer);
    } catch (e) {
      return { handled: true, error: `could not write the answer for the agent (${(e as Error).message}) — answer in the terminal` };
    }
    if (!written) {
      this.finish(ch, eventId, 'asked_in_terminal');
      return { handled: true, error: 'the agent stopped waiting and asked this in its terminal — answer it there' };
    }
    this.finish(ch, eventId, 'answered', 'behavior' in answer ? answer.behavior : undefined);
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

  /** Starts the agent command (or settings.agentCommand, or `claude`) in a new pane. */
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
    const { argv, sessionId } = withSessionId(command, this.opts.uuid?.() ?? crypto.randomUUID());
    const pane = panes.create({ kind: 'agent', command: argv, cwd: req.cwd, splitOf: req.splitOf, direction: req.direction });
    if (sessionId) {
      let cwd = pane.cwd;
      try {
        cwd = fs.realpathSync(cwd);
      } catch {
        // the folder is gone: keep the path as given
      }
      surfaces.watchTranscript(pane.id, transcriptPath(cwd, sessionId, this.opts.env ?? process.env));
    }
    return pane;
  }

  dispose(): void {
    this.disposed = true;
    clearInterval(this.timer);
    for (const u of this.unsubscribe.splice(0)) u();
    for (const id of [...this.channels.keys()]) this.detach(id);
  }
}

/** Installs the agent channel: its service, and the 'agent.new' request. */
export function installAgentChannel(opts: AgentChannelOptions): AgentChannel {
  const channel = new AgentChannel(opts);
  opts.core.handle('agent.new', (req) => channel.newAgentPane(req));
  opts.core.onDispose(() => channel.dispose());
  return channel;
}

/**
 * TDAC 0.2, the agent channel: the events the agents' hooks append to a pane's
 * inbound.jsonl (main/agent-channel/hook.ts writes them, each agent's module maps its
 * payloads), read back as typed values, and the cards the window makes of them. The
 * cards name the agent only by the label its event carries. Pure functions, no I/O.
 */

import type { AgentStatus } from '../../preload/contract.ts';

export const TDAC_VERSION = '0.2';

interface Base {
  id: string;
  /** RFC 3339, when the hook wrote it. */
  at: string;
  session_id?: string;
  /** The agent whose hook wrote it (claude, codex, gemini, opencode); claude when absent. */
  agent?: string;
}

export interface QuestionItem {
  question: string;
  header?: string;
  options: Array<{ label: string; description?: string }>;
  multiple: boolean;
}

export type TdacEvent =
  | (Base & { type: 'session'; transcript_path?: string; source?: string; cwd?: string })
  | (Base & { type: 'prompt'; text: string })
  /** hook_pid: the waiting hook's process, so a hook the agent killed (SIGKILL) is seen to be gone. */
  | (Base & { type: 'question'; questions: QuestionItem[]; hook_pid?: number })
  /**
   * answerable: false when the agent's hook cannot take an answer (answer in the terminal).
   * tool_use_id: the tool call it is for, where the agent says (then a tool event with it settles it).
   */
  | (Base & { type: 'permission'; tool_name: string; tool_input: unknown; answerable: boolean; tool_use_id?: string; hook_pid?: number })
  /** via: 'terminal' when the person answered in the agent's own prompt. */
  | (Base & { type: 'answer'; of: string; answers?: Record<string, string>; behavior?: 'allow' | 'deny'; message?: string; via?: 'terminal' })
  | (Base & { type: 'unanswered'; of: string; reason: string })
  /** A tool ran (or failed): the evidence that a prompt for it was answered. */
  | (Base & { type: 'tool'; tool_name: string; tool_input: unknown; tool_use_id?: string; answers?: Record<string, string>; failed?: boolean; tool_output?: string })
  | (Base & { type: 'reply'; text: string });

export type TdacType = TdacEvent['type'];

const ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** The major version events must carry (`tdac`: it, or it and a dot). */
const MAJOR = TDAC_VERSION.split('.')[0]!;
const AGENT = /^[a-z0-9-]{1,32}$/;
const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

const hookPid = (v: unknown): { hook_pid?: number } => (Number.isSafeInteger(v) && (v as number) > 1 ? { hook_pid: v as number } : {});

function questionItem(v: unknown): QuestionItem | undefined {
  if (!isObj(v) || typeof v.question !== 'string' || !v.question) return undefined;
  const options = Array.isArray(v.options)
    ? v.options.flatMap((o) => {
      if (typeof o === 'string') return [{ label: o }];
      if (isObj(o) && typeof o.label === 'string') return [{ label: o.label, ...(typeof o.description === 'string' ? { description: o.description } : {}) }];
      return [];
    })
    : [];
  return { question: v.question, ...(typeof v.header === 'string' ? { header: v.header } : {}), options, multiple: v.multiple === true || v.multiSelect === true };
}

let lastAt = '';
let lastAtMs = Number.NaN;
/**
 * An event's time (`at`) in ms since the epoch, as `Date.parse` gives it (NaN: not a date), the
 * last one remembered: an event's time is read twice as it is indexed (`parseEvent` checks it,
 * the search index's `agentEntry` keeps it), and parsed once (issue 36).
 */
export function atMs(at: string): number {
  if (at !== lastAt) {
    lastAtMs = Date.parse(at);
    lastAt = at;
  }
  return lastAtMs;
}

/** A parsed line with what every event has: this major version (`tdac`) and an id. */
const isHead = (v: unknown): v is Record<string, unknown> & { tdac: string; id: string } =>
  isObj(v) && typeof v.tdac === 'string' && (v.tdac === MAJOR || v.tdac.startsWith(`${MAJOR}.`)) && typeof v.id === 'string' && ID.test(v.id);
/** A line parsed, when it is JSON with what every event has (isHead); else undefined. */
function headOf(line: string): (Record<string, unknown> & { tdac: string; id: string }) | undefined {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return undefined;
  }
  return isHead(v) ? v : undefined;
}
/** An event's `at` as kept: its own when it is a date, else now. */
const eventAt = (at: unknown): string => (typeof at === 'string' && !Number.isNaN(atMs(at)) ? at : new Date().toISOString());
const answersOf = (x: unknown): Record<string, string> | undefined => (isObj(x)
  ? Object.fromEntries(Object.entries(x).filter((e): e is [string, string] => typeof e[1] === 'string'))
  : undefined);

/**
 * One line of inbound.jsonl as `parseEvent` reads it, when it is an event the search index
 * keeps (main/search/transcript.ts `agentEntry`): a prompt, a reply or a tool run, with only
 * what that reads (id, at, agent, type, and the text, or the tool's name, input and failure);
 * undefined for any other line. The agents' events are read by the index ~300 MB a GB of a
 * fleet's output, and the rest of an event is not made (issue 36).
 */
export function parseAgentEvent(line: string): TdacEvent | undefined {
  const v = headOf(line);
  if (!v) return undefined;
  const type = v.type;
  if (type === 'prompt' || type === 'reply') {
    const at = eventAt(v.at);
    const text = typeof v.text === 'string' ? v.text : '';
    return typeof v.agent === 'string' && AGENT.test(v.agent) ? { id: v.id, at, agent: v.agent, type, text } : { id: v.id, at, type, text };
  }
  if (type !== 'tool' || typeof v.tool_name !== 'string' || !v.tool_name) return undefined;
  const at = eventAt(v.at);
  const e: TdacEvent = typeof v.agent === 'string' && AGENT.test(v.agent)
    ? { id: v.id, at, agent: v.agent, type, tool_name: v.tool_name, tool_input: v.tool_input ?? {} }
    : { id: v.id, at, type, tool_name: v.tool_name, tool_input: v.tool_input ?? {} };
  if (v.failed === true) e.failed = true;
  if (typeof v.tool_output === 'string' && v.tool_output) e.tool_output = v.tool_output;
  return e;
}

/**
 * One line of inbound.jsonl as an event, or undefined for anything that is not a TDAC
 * 0.2 event this build knows (garbage, another major version, a missing id). Lenient in
 * what a field may lack: a question with only `question` and `options` (the short form)
 * is read as one question.
 */
export function parseEvent(line: string): TdacEvent | undefined {
  const v = headOf(line);
  if (!v) return undefined;
  const at = eventAt(v.at);
  const base = {
    id: v.id, at,
    ...(typeof v.session_id === 'string' ? { session_id: v.session_id } : {}),
    ...(typeof v.agent === 'string' && AGENT.test(v.agent) ? { agent: v.agent } : {}),
  };
  switch (v.type) {
    case 'session':
      return { ...base, type: 'session', transcript_path: str(v.transcript_path), source: str(v.source), cwd: str(v.cwd) };
    case 'prompt':
      return { ...base, type: 'prompt', text: str(v.text) ?? '' };
    case 'reply':
      return { ...base, type: 'reply', text: str(v.text) ?? '' };
    case 'question': {
      const list = Array.isArray(v.questions) ? v.questions.map(questionItem).filter((q): q is QuestionItem => q !== undefined) : [];
      if (list.length === 0) {
        const one = questionItem({ question: v.question, header: v.header, options: v.options, multiple: v.multiple });
        if (one) list.push(one);
      }
      return list.length ? { ...base, type: 'question', questions: list, ...hookPid(v.hook_pid) } : undefined;
    }
    case 'permission':
      return typeof v.tool_name === 'string' && v.tool_name
        ? {
          ...base, type: 'permission', tool_name: v.tool_name, tool_input: v.tool_input ?? {}, answerable: v.answerable !== false,
          ...(typeof v.tool_use_id === 'string' && ID.test(v.tool_use_id) ? { tool_use_id: v.tool_use_id } : {}), ...hookPid(v.hook_pid),
        }
        : undefined;
    case 'answer': {
      if (typeof v.of !== 'string') return undefined;
      const answers = answersOf(v.answers);
      const behavior = v.behavior === 'allow' || v.behavior === 'deny' ? v.behavior : undefined;
      return {
        ...base, type: 'answer', of: v.of, ...(answers ? { answers } : {}), ...(behavior ? { behavior } : {}),
        ...(typeof v.message === 'string' ? { message: v.message } : {}), ...(v.via === 'terminal' ? { via: 'terminal' as const } : {}),
      };
    }
    case 'tool': {
      if (typeof v.tool_name !== 'string' || !v.tool_name) return undefined;
      const answers = answersOf(v.answers);
      return {
        ...base, type: 'tool', tool_name: v.tool_name, tool_input: v.tool_input ?? {},
        ...(typeof v.tool_use_id === 'string' ? { tool_use_id: v.tool_use_id } : {}),
        ...(answers ? { answers } : {}), ...(v.failed === true ? { failed: true } : {}),
        ...(typeof v.tool_output === 'string' && v.tool_output ? { tool_output: v.tool_output } : {}),
      };
    }
    case 'unanswered':
      return typeof v.of === 'string' ? { ...base, type: 'unanswered', of: v.of, reason: str(v.reason) ?? 'unknown' } : undefined;
    default:
      return undefined;
  }
}

/**
 * A reply split for a response card: the first sentence as `layman`, the rest as
 * `body`. A sentence ends at . ! or ? followed by a space or a line end, or at the end
 * of the first paragraph; Markdown heading and list marks are taken off the first line,
 * and a first sentence longer than 280 characters is cut at a word with an ellipsis
 * (the whole reply is then the body).
 */
export function splitReply(text: string): { layman: string; body?: string } {
  const t = text.trim();
  if (!t) return { layman: 'The agent finished without a written reply.' };
  const para = t.split(/\n\s*\n/)[0];
  const m = /^[\s\S]*?[.!?](?=\s|$)/.exec(para);
  let first = (m ? m[0] : para).trim();
  let rest = t.slice(t.indexOf(first) + first.length).trim();
  let layman = first.replace(/^\s*(#{1,6}\s+|[-*+]\s+|\d+[.)]\s+|>\s*)/, '').replace(/\s+/g, ' ').trim();
  if (layman.length > 280) {
    const cutAt = layman.lastIndexOf(' ', 277);
    layman = `${layman.slice(0, cutAt > 100 ? cutAt : 277)}…`;
    rest = t;
    first = '';
  }
  if (!layman) layman = first || 'The agent replied.';
  return rest ? { layman, body: rest } : { layman };
}

/** Card ids derived from an event id (at most 128 characters, TDSP's id alphabet). */
export function questionCardId(eventId: string, index: number, count: number): string {
  const base = `question-${eventId.slice(0, 100)}`;
  return count > 1 ? `${base}-${index + 1}` : base;
}
export const permissionCardId = (eventId: string): string => `permission-${eventId.slice(0, 100)}`;
export const replyCardId = (eventId: string): string => `reply-${eventId.slice(0, 100)}`;

/**
 * What became of a question or permission card, shown on it (model.state): still
 * waiting; answered here (on the bench); answered in the agent's terminal; cancelled
 * (Esc, or "No" in the agent's own prompt); timed out (the hook stopped waiting and the
 * agent asks in its terminal); invalidated (no longer asked: the bench closed, no
 * window read it, a new session or prompt came first).
 */
export type CardState = 'waiting' | 'answered_here' | 'answered_in_terminal' | 'cancelled' | 'timed_out' | 'invalidated';

/** Who asks, as the card says it. */
export interface Asker {
  /** "Claude Code", "Codex", …; "The agent" when unknown. */
  label: string;
  /** Set when the bench cannot answer (the card then offers no buttons and says this). */
  cannotAnswer?: string;
}

/** The card's own words for its state, and a note when the state needs one. */
export function stateNote(state: CardState, asker: Asker, reason?: string): string | undefined {
  switch (state) {
    case 'waiting': return asker.cannotAnswer;
    case 'answered_here': return undefined;
    case 'answered_in_terminal': return `Answered in ${asker.label}'s terminal.`;
    case 'cancelled': return 'Cancelled in the terminal (Esc or No): nothing was run.';
    case 'timed_out': return `Nobody answered here in time: ${asker.label} asks in its terminal now.`;
    case 'invalidated':
      return reason === 'bench_closed' ? `The bench was closed, so ${asker.label} asked in its terminal.`
        : reason === 'no_window' ? `No window was reading this pane, so ${asker.label} asked in its terminal.`
          : `${asker.label} moved on before this was answered.`;
  }
}

function stateFields(state: CardState, asker: Asker, reason?: string): Record<string, unknown> {
  const note = stateNote(state, asker, reason);
  return { state, ...(note ? { state_note: note } : {}), ...(asker.cannotAnswer ? { answerable: false } : {}) };
}

export function questionCard(event: Extract<TdacEvent, { type: 'question' }>, index: number, state: CardState = 'waiting', answer?: string, asker: Asker = { label: 'The agent' }, reason?: string): Record<string, unknown> {
  const q = event.questions[index];
  const count = event.questions.length;
  return {
    td: '0.4',
    op: 'present',
    kind: 'question',
    id: questionCardId(event.id, index, count),
    title: q.header ? `${asker.label} asks: ${q.header}` : `${asker.label} asks`,
    model: {
      question: q.question,
      options: q.options.map((o) => (o.description ? { name: o.label, detail: o.description } : { name: o.label })),
      multiple: q.multiple,
      free_text: true,
      ...stateFields(state, asker, reason),
      ...(answer !== undefined ? { answer } : {}),
      ...(count > 1 ? { part: `${index + 1} of ${count}` } : {}),
    },
  };
}

const MAX_CONTEXT = 8 * 1024;

/** One line saying what the tool would do, for the decision's question. */
export function describeTool(tool: string, input: unknown): string {
  const i = isObj(input) ? input : {};
  const pick = (k: string) => (typeof i[k] === 'string' ? (i[k] as string) : undefined);
  const detail = pick('command') ?? pick('file_path') ?? pick('path') ?? pick('url') ?? pick('pattern') ?? pick('description');
  const oneLine = detail?.replace(/\s+/g, ' ').trim();
  const short = oneLine && oneLine.length > 160 ? `${oneLine.slice(0, 157)}…` : oneLine;
  return short ? `Allow ${tool}: ${short}?` : `Allow ${tool}?`;
}

export function permissionCard(event: Extract<TdacEvent, { type: 'permission' }>, state: CardState = 'waiting', answer?: string, asker: Asker = { label: 'The agent' }, reason?: string): Record<string, unknown> {
  let json = JSON.stringify(event.tool_input, null, 2) ?? '{}';
  if (json.length > MAX_CONTEXT) json = `${json.slice(0, MAX_CONTEXT)}\n… (cut)`;
  const fence = json.includes('```') ? '~~~~' : '```';
  return {
    td: '0.4',
    op: 'present',
    kind: 'decision',
    id: permissionCardId(event.id),
    title: `Permission: ${event.tool_name}`,
    model: {
      question: describeTool(event.tool_name, event.tool_input),
      options: [
        { name: 'allow', recommended: true, case: `Let ${event.tool_name} run this once.` },
        { name: 'deny', case: 'Refuse; a comment tells the agent why.' },
      ],
      context: `${asker.label} asks to use **${event.tool_name}** with:\n\n${fence}json\n${json}\n${fence}`,
      ...stateFields(state, asker, reason),
      ...(answer !== undefined ? { answer } : {}),
    },
  };
}

export function replyCard(event: Extract<TdacEvent, { type: 'reply' }>): Record<string, unknown> {
  const { layman, body } = splitReply(event.text);
  return {
    td: '0.4',
    op: 'present',
    kind: 'response',
    id: replyCardId(event.id),
    title: 'Reply',
    model: { layman, ...(body ? { body } : {}), register: 'done' },
  };
}

/** The agent status an event leaves the pane in, and the detail shown with it; undefined: unchanged. */
export function statusAfter(event: TdacEvent): { status: AgentStatus; detail?: string } | undefined {
  const short = (s: string) => {
    const one = s.replace(/\s+/g, ' ').trim();
    return one.length > 120 ? `${one.slice(0, 117)}…` : one;
  };
  switch (event.type) {
    case 'session': return { status: 'idle', detail: event.source ? `session ${event.source}` : undefined };
    case 'prompt': return { status: 'working', detail: event.text ? short(event.text) : undefined };
    case 'question': return { status: 'blocked', detail: short(event.questions[0].question) };
    case 'permission': return { status: 'blocked', detail: `permission for ${event.tool_name}` };
    case 'answer': return { status: 'working' };
    case 'tool': return { status: 'working' };
    case 'reply': return { status: 'done', detail: event.text ? short(event.text) : undefined };
    case 'unanswered': return undefined;
  }
}

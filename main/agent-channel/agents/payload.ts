/**
 * Reading agents' hook payloads defensively, and the parts of the mapping that several
 * agents share (Claude Code's hook protocol, which Codex follows too). Pure.
 */
import type { AnswerFile } from '../answers.ts';
import { redact } from '../../search/secrets.ts';
import type { EventDraft, HookContext, HookPlan, HookWait } from './types.ts';

/** Longest text an event carries (a reply, a prompt); the rest is cut with a mark. */
export const MAX_TEXT = 64 * 1024;
/** Longest tool input a permission or tool event carries, as JSON. */
export const MAX_TOOL_INPUT = 16 * 1024;
/** Longest tool output a tool event carries (`tool_output`). */
export const MAX_TOOL_OUTPUT = 16 * 1024;

export const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const obj = (v: unknown): Record<string, unknown> => (isObj(v) ? v : {});

/** A name safe as one path segment and as a TDSP id: A-Za-z0-9._:- only, 1 to 128 long. */
export function safeId(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(value) && value !== '.' && value !== '..';
}

export function cut(text: unknown, max = MAX_TEXT): string | undefined {
  if (typeof text !== 'string') return undefined;
  return text.length > max ? `${text.slice(0, max)}\n… (cut at ${max} characters)` : text;
}

/** A tool input as an event carries it: itself, or its JSON cut to 16 KiB as `{text}` with `truncated`. */
export function toolInput(value: unknown): { tool_input: unknown; truncated?: true } {
  const input = value ?? {};
  const json = JSON.stringify(input);
  return json && json.length > MAX_TOOL_INPUT ? { tool_input: { text: cut(json, MAX_TOOL_INPUT) }, truncated: true } : { tool_input: input };
}

/** The fields every event copies from a payload when present. */
export function sessionOf(input: Record<string, unknown>): { session_id?: string } {
  return typeof input.session_id === 'string' ? { session_id: input.session_id } : {};
}

export const isPermissionAnswer = (a: AnswerFile): boolean => 'behavior' in a && (a.behavior === 'allow' || a.behavior === 'deny');

/** The decision a permission answer carries: allow, or deny with its message. */
export function decisionOf(answer: AnswerFile): { behavior: 'allow' | 'deny'; message?: string } {
  if (!('behavior' in answer)) return { behavior: 'deny' };
  return answer.behavior === 'deny' && answer.message ? { behavior: 'deny', message: answer.message } : { behavior: answer.behavior };
}

/** SessionStart in Claude Code's hook protocol (Codex speaks it too): a `session` event with its JSONL transcript. */
export function sessionStart(input: Record<string, unknown>, ctx: HookContext): EventDraft {
  return { type: 'session', id: ctx.id('s'), ...sessionOf(input), transcript_path: str(input.transcript_path), source: str(input.source), cwd: str(input.cwd) };
}

/** The event a hook was run for: the payload's `hook_event_name`, else the one the hook command was given. */
export function eventName(input: Record<string, unknown>, ctx: HookContext): string | undefined {
  return typeof input.hook_event_name === 'string' ? input.hook_event_name : ctx.eventArg;
}

/** SessionStart and UserPromptSubmit, alike in Claude Code's hook protocol and Codex's; undefined for any other event. */
export function sessionOrPrompt(name: string | undefined, input: Record<string, unknown>, ctx: HookContext): HookPlan | undefined {
  if (name === 'SessionStart') return { events: [sessionStart(input, ctx)] };
  if (name === 'UserPromptSubmit') return { events: [promptEvent(input, ctx)] };
  return undefined;
}

/** A prompt the person sent (`prompt`: UserPromptSubmit in Claude Code's protocol and Codex's, BeforeAgent in Gemini CLI's). */
export function promptEvent(input: Record<string, unknown>, ctx: HookContext): EventDraft {
  return { type: 'prompt', id: ctx.id('p'), ...sessionOf(input), text: cut(input.prompt) ?? '' };
}

/**
 * A PermissionRequest in Claude Code's hook protocol (Codex speaks it too): a
 * `permission` event (the payload has no tool_use_id, so the id is made up) and a wait
 * whose answer goes back as `hookSpecificOutput.decision`.
 */
export function permissionRequest(input: Record<string, unknown>, ctx: HookContext): HookWait | undefined {
  if (typeof input.tool_name !== 'string' || !input.tool_name) return undefined;
  const event: EventDraft = { type: 'permission', id: ctx.id('perm'), ...sessionOf(input), tool_name: input.tool_name, ...toolInput(input.tool_input) };
  return {
    event,
    accepts: isPermissionAnswer,
    output: (answer) => ({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: decisionOf(answer) } }),
  };
}

/** Where a tool's result keeps its text, by the agents' shapes (Bash's stdout and stderr; Gemini CLI's returnDisplay; OpenCode's output; a Read's file.content). */
const OUTPUT_FIELDS = ['stdout', 'stderr', 'output', 'returnDisplay', 'content', 'result', 'text', 'error', 'message'] as const;

/**
 * What a tool gave back, as text, for its `tool` event: the payload's `tool_response` (Claude
 * Code, Codex, Gemini CLI; OpenCode's plugin passes its `output`) as a string, or the text of
 * its known fields (a structure of other fields, as an Edit's patch, carries none); a
 * failure's `error`. Secrets taken out (main/search/secrets.ts: the pane folder keeps what the
 * index would not), cut to MAX_TOOL_OUTPUT. Nothing when there is no text.
 */
export function toolOutput(input: Record<string, unknown>): { tool_output?: string } {
  const r = input.tool_response;
  const parts: string[] = [];
  if (typeof r === 'string') parts.push(r);
  else if (isObj(r)) {
    for (const k of OUTPUT_FIELDS) if (typeof r[k] === 'string' && r[k]) parts.push(r[k] as string);
    if (parts.length === 0 && typeof r.llmContent === 'string') parts.push(r.llmContent);
    if (isObj(r.file) && typeof r.file.content === 'string') parts.push(r.file.content);
  }
  if (typeof input.error === 'string' && input.error) parts.push(input.error);
  // (Cut before the secrets are looked for, with room for what they add: a Read of a large file.)
  const text = parts.join('\n').trim().slice(0, 4 * MAX_TOOL_OUTPUT);
  return text ? { tool_output: cut(redact(text), MAX_TOOL_OUTPUT)! } : {};
}

/** A tool that ran (or failed): the evidence that a permission for it was answered. */
export function toolEvent(input: Record<string, unknown>, ctx: HookContext, extra: Record<string, unknown> = {}): EventDraft | undefined {
  if (typeof input.tool_name !== 'string' || !input.tool_name) return undefined;
  return {
    type: 'tool',
    id: ctx.id('t'),
    ...sessionOf(input),
    tool_name: input.tool_name,
    ...toolInput(input.tool_input),
    ...(safeId(input.tool_use_id) ? { tool_use_id: input.tool_use_id } : {}),
    ...toolOutput(input),
    ...extra,
  };
}


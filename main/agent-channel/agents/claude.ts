/**
 * Claude Code: recognised by `claude` (or `claude-code`) as argv[0]; hooks in
 * ~/.claude/settings.json (scripts/hooks/tdac-hook.sh, Claude Code's hook protocol);
 * started with a `--session-id` the app chooses, so its transcript
 * (~/.claude/projects/<key>/<session>.jsonl) is known from the first second; resumed
 * with `--resume <id>`.
 *
 * Events: SessionStart → session; UserPromptSubmit → prompt; PreToolUse of
 * AskUserQuestion → question (waits for the bench); PermissionRequest → permission
 * (waits); PostToolUse / PostToolUseFailure → tool (the evidence that a prompt was
 * answered in the terminal); Stop → reply.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AnswerFile } from '../answers.ts';
import { cut, eventName, isObj, MAX_TEXT, obj, permissionRequest, safeId, sessionOf, sessionOrPrompt, toolEvent } from './payload.ts';
import { resumeFlags, type FlagSpec } from './argv.ts';
import type { AgentModule, EventDraft, HookContext, HookPlan } from './types.ts';

const PROGRAMS = ['claude', 'claude-code'] as const;

export function isClaude(command: readonly string[]): boolean {
  const name = command[0] ? path.basename(command[0]) : '';
  return (PROGRAMS as readonly string[]).includes(name);
}

/** Flags after which Claude Code picks or continues a session itself. */
const SESSION_FLAGS = new Set(['--session-id', '--resume', '-r', '--continue', '-c', '--fork-session', '--from-pr']);

/**
 * The command with `--session-id <uuid>` added when it starts Claude Code and names no
 * session of its own; `sessionId` is undefined when nothing was added.
 */
export function withSessionId(command: readonly string[], uuid: string): { argv: string[]; sessionId?: string } {
  if (!isClaude(command) || command.slice(1).some((a) => SESSION_FLAGS.has(a.split('=')[0]))) return { argv: [...command] };
  return { argv: [command[0], '--session-id', uuid, ...command.slice(1)], sessionId: uuid };
}

/** Claude Code's options, as `claude --help` (2.1.328) lists them, by what follows them. */
const FLAGS: FlagSpec = {
  value: ['--agent', '--agents', '--append-system-prompt', '--autocompact', '--debug-file', '--effort', '--environment', '--fallback-model',
    '--input-format', '--json-schema', '--max-budget-usd', '--model', '--name', '-n', '--output-format', '--permission-mode',
    '--permission-prompts', '--plugin-dir', '--plugin-url', '--remote-control-session-name-prefix', '--session-id', '--settings',
    '--setting-sources', '--system-prompt', '--system-prompt-file', '--append-system-prompt-file', '--permission-prompt-tool', '--max-turns'],
  variadic: ['--add-dir', '--allowedTools', '--allowed-tools', '--disallowedTools', '--disallowed-tools', '--betas', '--file', '--mcp-config', '--tools'],
  optional: ['--resume', '-r', '--debug', '-d', '--cloud', '--from-pr', '--prompt-suggestions', '--remote-control'],
  drop: [...SESSION_FLAGS, '--print', '-p'],
};

/** `claude --resume <id>` and the original options (no session flags, no prompt). */
export function resumeArgv(argv: readonly string[], sessionId: string): string[] {
  return [argv[0] ?? 'claude', '--resume', sessionId, ...resumeFlags(argv.slice(1), FLAGS)];
}

/** Java's String.hashCode over UTF-16 units, as a 32-bit signed integer. */
function hash32(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/**
 * Claude Code's project folder name for a working directory: every character outside
 * A-Za-z0-9 becomes `-` (so `/home/ada/my_app.v2` is `-home-ada-my-app-v2`); a name
 * longer than 200 is cut to 200 and given `-` and a base-36 hash of the whole path.
 */
export function projectKey(cwd: string): string {
  const key = cwd.replace(/[^A-Za-z0-9]/g, '-');
  return key.length <= 200 ? key : `${key.slice(0, 200)}-${Math.abs(hash32(cwd)).toString(36)}`;
}

/** ~/.claude (or $CLAUDE_CONFIG_DIR), where Claude Code keeps settings and transcripts. */
export function claudeConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CLAUDE_CONFIG_DIR && path.isAbsolute(env.CLAUDE_CONFIG_DIR)) return env.CLAUDE_CONFIG_DIR;
  return path.join(env.HOME && path.isAbsolute(env.HOME) ? env.HOME : os.homedir(), '.claude');
}

/** ~/.claude/projects/<projectKey(cwd)>/<session>.jsonl */
export function transcriptPath(cwd: string, sessionId: string, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(claudeConfigDir(env), 'projects', projectKey(cwd), `${sessionId}.jsonl`);
}

/** The last assistant text in a Claude Code transcript (its last 256 KiB), for a Stop without last_assistant_message. */
export function lastAssistantText(transcript: unknown): string | undefined {
  if (typeof transcript !== 'string' || !path.isAbsolute(transcript)) return undefined;
  let fd: number | undefined;
  try {
    fd = fs.openSync(transcript, 'r');
    const size = fs.fstatSync(fd).size;
    const start = Math.max(0, size - 256 * 1024);
    const buf = Buffer.alloc(size - start);
    fs.readSync(fd, buf, 0, buf.length, start);
    const lines = buf.toString('utf8').split('\n');
    for (let i = lines.length - 1; i >= 0; i--) {
      let entry: unknown;
      try { entry = JSON.parse(lines[i]); } catch { continue; }
      const message = isObj(entry) && entry.type === 'assistant' && isObj(entry.message) ? entry.message : undefined;
      const content = message?.content;
      if (typeof content === 'string' && content.trim()) return content;
      if (Array.isArray(content)) {
        const text = content.filter((c) => isObj(c) && c.type === 'text' && typeof c.text === 'string').map((c) => (c as { text: string }).text).join('\n');
        if (text.trim()) return text;
      }
    }
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
  return undefined;
}

function questionsOf(toolInput: Record<string, unknown>): Array<Record<string, unknown>> {
  const list = Array.isArray(toolInput.questions) ? toolInput.questions : [];
  return list.filter((q): q is Record<string, unknown> => isObj(q) && typeof q.question === 'string' && q.question.length > 0);
}

/** AskUserQuestion's answers as given: question → label, a list joined with `, `. */
function answersOf(given: unknown): Record<string, string> {
  const answers: Record<string, string> = {};
  if (!isObj(given)) return answers;
  for (const [q, a] of Object.entries(given)) {
    if (typeof a === 'string') answers[q] = a;
    else if (Array.isArray(a)) answers[q] = a.filter((x) => typeof x === 'string').join(', ');
  }
  return answers;
}

function onQuestion(input: Record<string, unknown>, ctx: HookContext): HookPlan {
  const toolInput = isObj(input.tool_input) ? input.tool_input : {};
  const questions = questionsOf(toolInput);
  if (questions.length === 0) return { events: [] };
  const options = (q: Record<string, unknown>) => (Array.isArray(q.options) ? q.options : [])
    .filter((o): o is Record<string, unknown> => isObj(o) && typeof o.label === 'string')
    .map((o) => ({ label: o.label as string, ...(typeof o.description === 'string' ? { description: o.description } : {}) }));
  const event: EventDraft = {
    type: 'question',
    id: safeId(input.tool_use_id) ? input.tool_use_id : ctx.id('q'),
    ...sessionOf(input),
    questions: questions.map((q) => ({ question: q.question, ...(typeof q.header === 'string' ? { header: q.header } : {}), options: options(q), multiple: q.multiSelect === true })),
  };
  return {
    events: [],
    wait: {
      event,
      accepts: (a: AnswerFile) => 'answers' in a && isObj(a.answers),
      output(answer) {
        const given = 'answers' in answer ? answer.answers : {};
        const answers: Record<string, string> = {};
        for (const q of questions) {
          const a = answersOf(given)[q.question as string];
          if (a !== undefined) answers[q.question as string] = a;
        }
        return {
          hookSpecificOutput: {
            hookEventName: 'PreToolUse',
            permissionDecision: 'allow',
            permissionDecisionReason: 'Answered on the Terminal Delight workbench',
            updatedInput: { ...toolInput, questions: toolInput.questions, answers },
          },
        };
      },
    },
  };
}

function hook(input: Record<string, unknown>, ctx: HookContext): HookPlan {
  const name = eventName(input, ctx);
  const common = sessionOrPrompt(name, input, ctx);
  if (common) return common;
  switch (name) {
    case 'PreToolUse':
      return input.tool_name === 'AskUserQuestion' ? onQuestion(input, ctx) : { events: [] };
    case 'PostToolUse':
    case 'PostToolUseFailure': {
      const failed = name === 'PostToolUseFailure';
      // AskUserQuestion answered in the terminal: its answers, for the card.
      const extra = input.tool_name === 'AskUserQuestion'
        ? { answers: answersOf(isObj(input.tool_response) && isObj(input.tool_response.answers) ? input.tool_response.answers : obj(input.tool_input).answers) }
        : {};
      const e = toolEvent(input, ctx, { ...extra, ...(failed ? { failed: true } : {}) });
      return { events: e ? [e] : [] };
    }
    case 'PermissionRequest': {
      // AskUserQuestion's own dialog is a permission prompt too; it is the PreToolUse hook's.
      if (input.tool_name === 'AskUserQuestion') return { events: [] };
      const wait = permissionRequest(input, ctx);
      return wait ? { events: [], wait } : { events: [] };
    }
    case 'Stop': {
      const text = typeof input.last_assistant_message === 'string' ? input.last_assistant_message : lastAssistantText(input.transcript_path);
      return { events: [{ type: 'reply', id: ctx.id('r'), ...sessionOf(input), text: cut(text, MAX_TEXT) ?? '' }] };
    }
    default:
      return { events: [] };
  }
}

export const claude: AgentModule = {
  name: 'claude',
  label: 'Claude Code',
  programs: PROGRAMS,
  install: 'npm install -g @anthropic-ai/claude-code',
  can: { permissionsFromBench: true, questionsFromBench: true, transcript: true, resume: true },
  hook,
  startArgv: withSessionId,
  resumeArgv,
  transcriptPath,
};

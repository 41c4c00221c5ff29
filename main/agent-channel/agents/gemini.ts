/**
 * Gemini CLI: recognised by `gemini` as argv[0]; hooks in ~/.gemini/settings.json
 * (SessionStart, BeforeAgent, AfterAgent, AfterTool, Notification); started with a
 * `--session-id` the app chooses; resumed with `--resume <id>`.
 *
 * What it cannot do (read in its source, 0.61.0: scheduler.ts, hook-utils.ts,
 * hookSystem.ts): a hook can block a tool (BeforeTool, which runs before the policy check
 * and the prompt, for every tool) or force the prompt, but nothing a hook returns allows a
 * tool the policy asks about; the permission prompt reaches hooks only as a Notification,
 * whose output is ignored. So a permission card says to answer in the terminal and carries
 * no buttons; it is retired when the tool has run (AfterTool). "No" or Esc in its prompt
 * runs no hook at all: the card stays until the next prompt, which retires it. It has no
 * question tool a hook can answer; its transcript is one JSON document, not JSONL, so
 * ```td blocks are read from the reply AfterAgent hands over.
 */
import { cut, eventName, obj, promptEvent, sessionOf, str, toolEvent, toolInput } from './payload.ts';
import { resumeFlags, type FlagSpec } from './argv.ts';
import type { AgentModule, HookContext, HookPlan } from './types.ts';

const FLAGS: FlagSpec = {
  value: ['-m', '--model', '-w', '--worktree', '--approval-mode', '-o', '--output-format', '--session-id', '-r', '--resume', '--session-file', '--delete-session'],
  variadic: ['--policy', '--admin-policy', '--allowed-mcp-server-names', '--allowed-tools', '-e', '--extensions', '--include-directories'],
  drop: ['--session-id', '-r', '--resume', '--session-file', '-p', '--prompt', '-i', '--prompt-interactive', '--list-sessions', '--delete-session'],
};

/** Whether argv already picks a session. */
const SESSION_FLAGS = new Set(['--session-id', '-r', '--resume', '--session-file']);

export function startArgv(argv: readonly string[], uuid: string): { argv: string[]; sessionId?: string } {
  if (argv.slice(1).some((a) => SESSION_FLAGS.has(a.split('=')[0]))) return { argv: [...argv] };
  return { argv: [argv[0], '--session-id', uuid, ...argv.slice(1)], sessionId: uuid };
}

/** `gemini --resume <id>` and the original options (no prompt, no session flags). */
export function resumeArgv(argv: readonly string[], sessionId: string): string[] {
  return [argv[0] ?? 'gemini', '--resume', sessionId, ...resumeFlags(argv.slice(1), FLAGS)];
}

/**
 * What a ToolPermission notification's details say, as a card shows it: the kind of tool
 * (its confirmation `type`: exec, edit, mcp, info) and the part a person decides on.
 */
export function permissionOf(details: Record<string, unknown>): { tool_name: string; tool_input: Record<string, unknown> } {
  const some = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
  switch (details.type) {
    case 'exec':
      return { tool_name: 'Shell', tool_input: some({ command: str(details.command), root_command: str(details.rootCommand) }) };
    case 'edit':
      return { tool_name: 'Edit', tool_input: some({ file_path: str(details.filePath) ?? str(details.fileName) }) };
    case 'mcp':
      return { tool_name: str(details.toolDisplayName) ?? str(details.toolName) ?? 'an MCP tool', tool_input: some({ server: str(details.serverName), tool: str(details.toolName) }) };
    case 'info':
      return { tool_name: 'Web fetch', tool_input: some({ prompt: str(details.prompt), urls: Array.isArray(details.urls) ? details.urls : undefined }) };
    default:
      return { tool_name: str(details.title) ?? 'a tool', tool_input: {} };
  }
}

function hook(input: Record<string, unknown>, ctx: HookContext): HookPlan {
  const name = eventName(input, ctx);
  switch (name) {
    case 'SessionStart':
      // transcript_path is a JSON document, not JSONL: the transcript route is not told.
      return { events: [{ type: 'session', id: ctx.id('s'), ...sessionOf(input), source: str(input.source), cwd: str(input.cwd) }] };
    case 'BeforeAgent':
      return { events: [promptEvent(input, ctx)] };
    case 'Notification': {
      if (input.notification_type !== 'ToolPermission') return { events: [] };
      const { tool_name, tool_input } = permissionOf(obj(input.details));
      return {
        events: [{
          type: 'permission', id: ctx.id('perm'), ...sessionOf(input), tool_name, ...toolInput(tool_input), answerable: false,
          ...(str(input.message) ? { message: str(input.message) } : {}),
        }],
      };
    }
    case 'AfterTool': {
      const e = toolEvent(input, ctx);
      return { events: e ? [e] : [] };
    }
    case 'AfterAgent':
      return { events: [{ type: 'reply', id: ctx.id('r'), ...sessionOf(input), text: cut(input.prompt_response) ?? '' }] };
    default:
      return { events: [] };
  }
}

export const gemini: AgentModule = {
  name: 'gemini',
  label: 'Gemini CLI',
  programs: ['gemini'],
  install: 'npm install -g @google/gemini-cli',
  can: { permissionsFromBench: false, questionsFromBench: false, transcript: false, resume: true },
  cannotAnswer: 'Gemini CLI\'s hooks cannot answer its permission prompts: answer in its terminal.',
  hook,
  startArgv,
  resumeArgv,
};

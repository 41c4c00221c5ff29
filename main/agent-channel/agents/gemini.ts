/**
 * Gemini CLI: recognised by `gemini` as argv[0]; hooks in ~/.gemini/settings.json
 * (SessionStart, BeforeAgent, AfterAgent, BeforeTool, AfterTool, Notification); started
 * with a `--session-id` the app chooses; resumed with `--resume <id>`.
 *
 * What it cannot do: its permission prompt reaches hooks only as a Notification, which
 * cannot answer it, so a permission card says to answer in the terminal and carries no
 * buttons (it is retired as soon as the tool runs: BeforeTool); it has no question tool a
 * hook sees; its transcript is one JSON document, not JSONL, so ```td blocks are read
 * from the reply AfterAgent hands over.
 */
import { cut, obj, sessionOf, str, toolEvent, toolInput } from './payload.ts';
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

function hook(input: Record<string, unknown>, ctx: HookContext): HookPlan {
  const name = typeof input.hook_event_name === 'string' ? input.hook_event_name : ctx.eventArg;
  switch (name) {
    case 'SessionStart':
      // transcript_path is a JSON document, not JSONL: the transcript route is not told.
      return { events: [{ type: 'session', id: ctx.id('s'), ...sessionOf(input), source: str(input.source), cwd: str(input.cwd) }] };
    case 'BeforeAgent':
      return { events: [{ type: 'prompt', id: ctx.id('p'), ...sessionOf(input), text: cut(input.prompt) ?? '' }] };
    case 'Notification': {
      if (input.notification_type !== 'ToolPermission') return { events: [] };
      const details = obj(input.details);
      const tool = str(details.toolName) ?? str(details.title) ?? str(details.rootCommand) ?? 'a tool';
      return {
        events: [{
          type: 'permission', id: ctx.id('perm'), ...sessionOf(input), tool_name: tool, ...toolInput(details), answerable: false,
          ...(str(input.message) ? { message: str(input.message) } : {}),
        }],
      };
    }
    case 'BeforeTool':
    case 'AfterTool': {
      const e = toolEvent(input, ctx, name === 'BeforeTool' ? { phase: 'before' } : {});
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
  can: { permissionsFromBench: false, questionsFromBench: false, transcript: false, resume: true },
  cannotAnswer: 'Gemini CLI\'s hooks cannot answer its permission prompts: answer in its terminal.',
  hook,
  startArgv,
  resumeArgv,
};

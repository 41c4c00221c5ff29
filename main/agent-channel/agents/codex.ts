/**
 * Codex (OpenAI's CLI): recognised by `codex` as argv[0]; hooks in ~/.codex/hooks.json,
 * which Codex runs by default since 0.124 and whose protocol is Claude Code's
 * (SessionStart, UserPromptSubmit, PermissionRequest with an allow/deny decision,
 * PostToolUse, Stop); its transcript is the session's rollout JSONL, which SessionStart
 * names; resumed with `codex resume <id>`.
 *
 * What it cannot do: Codex has no question tool a hook sees, so there are no question
 * cards; it runs PermissionRequest hooks before it draws its own approval prompt, so
 * while the bench waits the terminal shows no prompt until the bench answers, the wait
 * ends (bench closed, 540 s) or the person presses Esc.
 */
import { cut, eventName, permissionRequest, sessionOf, sessionOrPrompt, toolEvent } from './payload.ts';
import { resumeFlags, type FlagSpec } from './argv.ts';
import type { AgentModule, HookContext, HookPlan } from './types.ts';

const FLAGS: FlagSpec = {
  value: ['-c', '--config', '--enable', '--disable', '--remote', '--remote-auth-token-env', '-m', '--model', '--local-provider',
    '-p', '--profile', '-s', '--sandbox', '-C', '--cd', '--add-dir', '-a', '--ask-for-approval'],
  variadic: ['-i', '--image'],
  drop: ['--last', '--all', '--include-non-interactive'],
};

/** `codex resume <id>` and the original options (no prompt). A `codex resume …` or another subcommand resumes the same way. */
export function resumeArgv(argv: readonly string[], sessionId: string): string[] {
  let args = argv.slice(1);
  if (args[0] === 'resume' || args[0] === 'fork') args = args.slice(1);
  return [argv[0] ?? 'codex', 'resume', ...resumeFlags(args, FLAGS), sessionId];
}

function hook(input: Record<string, unknown>, ctx: HookContext): HookPlan {
  const name = eventName(input, ctx);
  const common = sessionOrPrompt(name, input, ctx);
  if (common) return common;
  switch (name) {
    case 'PermissionRequest': {
      const wait = permissionRequest(input, ctx);
      return wait ? { events: [], wait } : { events: [] };
    }
    case 'PostToolUse': {
      const e = toolEvent(input, ctx);
      return { events: e ? [e] : [] };
    }
    case 'Stop':
      return { events: [{ type: 'reply', id: ctx.id('r'), ...sessionOf(input), text: cut(input.last_assistant_message) ?? '' }] };
    default:
      return { events: [] };
  }
}

export const codex: AgentModule = {
  name: 'codex',
  label: 'Codex',
  programs: ['codex'],
  install: 'npm install -g @openai/codex',
  can: { permissionsFromBench: true, questionsFromBench: false, transcript: true, resume: true },
  hook,
  startArgv: (argv) => ({ argv: [...argv] }),
  resumeArgv,
};

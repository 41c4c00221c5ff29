/**
 * OpenCode: recognised by `opencode` as argv[0]; a plugin in its plugin folder
 * (~/.config/opencode/plugin/terminal-delight.js, written by `terminal-delight hooks`)
 * forwards the few events that matter to scripts/hooks/tdac-hook.sh as JSON, with the
 * names below, and hands a permission answer back to OpenCode through its own client
 * (the reply the TUI sends: once or reject); resumed with `--session <id>`.
 *
 * Payloads (the plugin's, `hook_event_name` first): `session.created` {session_id};
 * `chat.message` {session_id, text}; `permission.asked` {session_id, permission_id,
 * permission, patterns, title, metadata, call_id}; `permission.replied` {session_id,
 * permission_id, reply}; `tool.execute.after` {session_id, tool, args, call_id, tool_response:
 * the tool's output text};
 * `session.idle` {session_id, text: the last assistant text}.
 *
 * What it cannot do: no question tool a plugin sees; no JSONL transcript (its sessions
 * live in a database), so ```td blocks are read from the reply `session.idle` carries.
 */
import { cut, eventName, isObj, obj, safeId, sessionOf, str, toolInput, toolOutput } from './payload.ts';
import { resumeFlags, type FlagSpec } from './argv.ts';
import type { AgentModule, EventDraft, HookContext, HookPlan } from './types.ts';

const FLAGS: FlagSpec = {
  value: ['--log-level', '--port', '--hostname', '--mdns-domain', '-m', '--model', '-s', '--session', '--prompt', '--agent', '--replay-limit'],
  variadic: ['--cors'],
  drop: ['-s', '--session', '-c', '--continue', '--fork', '--prompt'],
};

/** `opencode --session <id>` and the original options (no project folder, no prompt). */
export function resumeArgv(argv: readonly string[], sessionId: string): string[] {
  return [argv[0] ?? 'opencode', '--session', sessionId, ...resumeFlags(argv.slice(1), FLAGS)];
}

function hook(input: Record<string, unknown>, ctx: HookContext): HookPlan {
  const name = eventName(input, ctx);
  switch (name) {
    case 'session.created':
      return { events: [{ type: 'session', id: ctx.id('s'), ...sessionOf(input), source: 'startup' }] };
    case 'chat.message':
      return { events: [{ type: 'prompt', id: ctx.id('p'), ...sessionOf(input), text: cut(input.text) ?? '' }] };
    case 'permission.asked': {
      const id = safeId(input.permission_id) ? input.permission_id : ctx.id('perm');
      const metadata = obj(input.metadata);
      const patterns = Array.isArray(input.patterns) ? input.patterns.filter((p) => typeof p === 'string') : [];
      const detail = { ...(patterns.length ? { command: patterns.join(' ') } : {}), ...metadata, ...(str(input.title) ? { description: str(input.title) } : {}) };
      const event: EventDraft = {
        type: 'permission', id, ...sessionOf(input), tool_name: str(input.permission) ?? 'a tool', ...toolInput(detail),
        ...(safeId(input.call_id) ? { tool_use_id: input.call_id } : {}),
      };
      return {
        events: [],
        wait: {
          event,
          accepts: (a) => 'behavior' in a,
          output: (a) => ('behavior' in a && a.behavior === 'allow' ? { reply: 'once' } : { reply: 'reject', ...('message' in a && a.message ? { message: a.message } : {}) }),
        },
      };
    }
    case 'permission.replied': {
      if (!safeId(input.permission_id)) return { events: [] };
      const behavior = input.reply === 'reject' ? 'deny' : 'allow';
      return { events: [{ type: 'answer', id: ctx.id('a'), ...sessionOf(input), of: input.permission_id, behavior, via: 'terminal' }] };
    }
    case 'tool.execute.after': {
      if (typeof input.tool !== 'string') return { events: [] };
      return { events: [{ type: 'tool', id: ctx.id('t'), ...sessionOf(input), tool_name: input.tool, ...toolInput(isObj(input.args) ? input.args : {}), ...(safeId(input.call_id) ? { tool_use_id: input.call_id } : {}), ...toolOutput(input) }] };
    }
    case 'session.idle':
      return { events: [{ type: 'reply', id: ctx.id('r'), ...sessionOf(input), text: cut(input.text) ?? '' }] };
    default:
      return { events: [] };
  }
}

export const opencode: AgentModule = {
  name: 'opencode',
  label: 'OpenCode',
  programs: ['opencode'],
  install: 'npm install -g opencode-ai',
  can: { permissionsFromBench: true, questionsFromBench: false, transcript: false, resume: true },
  hook,
  startArgv: (argv) => ({ argv: [...argv] }),
  resumeArgv,
};

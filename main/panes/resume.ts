/**
 * What a pane runs when it is resumed after the service stopped under it
 * (docs/design/service.md, "Resume"): an agent CLI picks up its own session, a shell
 * starts again in its last folder, anything else runs its argv again. Pure functions.
 */
import path from 'node:path';
import type { AgentName } from '../../preload/contract.ts';

/** Programs that run what is typed at them as commands. */
export const SHELLS = new Set(['bash', 'zsh', 'fish', 'sh', 'dash', 'ksh', 'mksh', 'tcsh', 'csh', 'nu', 'pwsh', 'xonsh', 'elvish']);

export function programName(argv: readonly string[]): string {
  return path.basename(argv[0] ?? '').replace(/^-/, '');
}

export function isShell(argv: readonly string[]): boolean {
  return SHELLS.has(programName(argv));
}

/** The agent CLI an argv starts, from its program name. */
export function agentOf(argv: readonly string[]): AgentName | undefined {
  const name = programName(argv);
  if (name === 'claude' || name === 'claude-code') return 'claude';
  if (name === 'codex') return 'codex';
  if (name === 'gemini') return 'gemini';
  if (name === 'opencode') return 'opencode';
  return undefined;
}

/** Remove flags (and the value each takes, when `valued`) from an argument list. */
function dropFlags(args: readonly string[], bare: ReadonlySet<string>, valued: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const name = a.split('=')[0];
    if (bare.has(a)) continue;
    if (valued.has(name)) {
      if (!a.includes('=')) i++;
      continue;
    }
    out.push(a);
  }
  return out;
}

/** Claude Code: `--resume <id>` and the other original flags, without the flags that chose a session. */
export function claudeResume(argv: readonly string[], sessionId: string | undefined): string[] {
  const sid = sessionId ?? valueOf(argv, '--session-id');
  if (!sid) return [...argv];
  const rest = dropFlags(argv.slice(1), new Set(['--continue', '-c', '--fork-session']), new Set(['--session-id', '--resume', '-r']));
  return [argv[0], '--resume', sid, ...rest];
}

/** Codex flags that take a value (codex --help); positionals (an initial prompt) are not sent again. */
const CODEX_VALUED = new Set(['-m', '--model', '-c', '--config', '-p', '--profile', '-s', '--sandbox', '-a', '--ask-for-approval', '-C', '--cd', '-i', '--image', '--add-dir', '--local-provider', '--enable', '--disable']);

/** Codex: `codex resume <id>` with its original flags (an initial prompt is not sent again). */
export function codexResume(argv: readonly string[], sessionId: string | undefined): string[] {
  if (!sessionId) return [...argv];
  const flags: string[] = [];
  const args = argv.slice(1);
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (!a.startsWith('-')) continue; // a subcommand or the prompt
    flags.push(a);
    if (CODEX_VALUED.has(a) && i + 1 < args.length) flags.push(args[++i]);
  }
  return [argv[0], 'resume', ...flags, sessionId];
}

function valueOf(argv: readonly string[], flag: string): string | undefined {
  for (let i = 1; i < argv.length; i++) {
    if (argv[i] === flag) return argv[i + 1];
    if (argv[i].startsWith(`${flag}=`)) return argv[i].slice(flag.length + 1);
  }
  return undefined;
}

/** Per agent: how its argv resumes a session. Gemini CLI and OpenCode are added with their hooks (docs/spec/agents/). */
export const RESUMERS: Partial<Record<AgentName, (argv: readonly string[], sessionId: string | undefined) => string[]>> = {
  claude: claudeResume,
  codex: codexResume,
};

/** The argv a resumed pane runs. */
export function resumeArgv(argv: readonly string[], agent?: { name: AgentName; sessionId?: string }): string[] {
  const name = agent?.name ?? agentOf(argv);
  const resume = name ? RESUMERS[name] : undefined;
  return resume ? resume(argv, agent?.sessionId) : [...argv];
}

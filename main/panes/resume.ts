/**
 * What a pane runs when it is resumed after the service stopped under it
 * (docs/design/service.md, "Resume"): an agent CLI picks up its own session (each agent's
 * module in main/agent-channel/agents/ says how), a shell starts again in its last folder,
 * anything else runs its argv again. Pure functions.
 */
import path from 'node:path';
import type { AgentName } from '../../preload/contract.ts';
import { AGENTS, agentOf as agentModuleOf } from '../agent-channel/agents/index.ts';

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
  return agentModuleOf(argv)?.name;
}

/** The value after `flag` in argv (`--session-id X` or `--session-id=X`). */
export function flagValue(argv: readonly string[], flag: string): string | undefined {
  for (let i = 1; i < argv.length; i++) {
    if (argv[i] === flag) return argv[i + 1];
    if (argv[i].startsWith(`${flag}=`)) return argv[i].slice(flag.length + 1);
  }
  return undefined;
}

/**
 * The argv a resumed pane runs: the agent's own resume when its session id is known (the
 * id the app gave it with `--session-id`, or the one its hooks reported), else the same argv.
 */
export function resumeArgv(argv: readonly string[], agent?: { name: AgentName; sessionId?: string }): string[] {
  const mod = agent ? AGENTS[agent.name] : agentModuleOf(argv);
  if (!mod) return [...argv];
  const sessionId = agent?.sessionId ?? flagValue(argv, '--session-id');
  return sessionId && mod.can.resume ? mod.resumeArgv(argv, sessionId) : [...argv];
}

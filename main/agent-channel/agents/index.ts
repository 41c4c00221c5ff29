/**
 * Every agent CLI the app knows, by name: the one table the agent channel, the
 * installer, "+ Agent" and resume read. Adding an agent is adding a module here.
 */
import path from 'node:path';
import type { AgentName } from '../../../preload/contract.ts';
import { claude } from './claude.ts';
import { codex } from './codex.ts';
import { gemini } from './gemini.ts';
import { opencode } from './opencode.ts';
import type { AgentModule } from './types.ts';

export type { AgentModule } from './types.ts';

export const AGENTS: Readonly<Record<AgentName, AgentModule>> = { claude, codex, gemini, opencode };

export const AGENT_NAMES = Object.keys(AGENTS) as AgentName[];

export function isAgentName(name: unknown): name is AgentName {
  return typeof name === 'string' && Object.hasOwn(AGENTS, name);
}

/** The agent a command starts, from its argv[0]; undefined for anything else. */
export function agentOf(argv: readonly string[]): AgentModule | undefined {
  const program = argv[0] ? path.basename(argv[0]) : '';
  return Object.values(AGENTS).find((a) => a.programs.includes(program));
}

/**
 * Where the agent channel's files are for each agent, and whether it is installed: the
 * settings file each agent reads its hooks from, the record `terminal-delight hooks` keeps of
 * what it installed, and the agents whose channel is in place ("+ Agent" says so of one
 * without). The core reads these; the `hooks` command (cli.ts) writes them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AgentName } from '../../preload/contract.ts';
import { readRecord } from '../../scripts/hooks/record.mjs';
import { homeOf, statePaths } from '../paths.ts';
import { realOf } from '../panes/env.ts';
import { claudeConfigDir } from './agents/claude.ts';
import { AGENT_NAMES } from './agents/index.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The hook every agent's settings name. */
export const HOOK = path.join(ROOT, 'scripts', 'hooks', 'tdac-hook.sh');

const home = homeOf;

/** Where each agent's hook settings are, from the environment (as each agent finds them). */
export function settingsFile(agent: Exclude<AgentName, 'claude'>, env: NodeJS.ProcessEnv = process.env): string {
  switch (agent) {
    case 'codex': return path.join(env.CODEX_HOME && path.isAbsolute(env.CODEX_HOME) ? env.CODEX_HOME : path.join(home(env), '.codex'), 'hooks.json');
    case 'gemini': return path.join(home(env), '.gemini', 'settings.json');
    case 'opencode': return path.join(env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(home(env), '.config'), 'opencode', 'plugin', 'terminal-delight.js');
  }
}

/** Where `hooks` records what it installed (scripts/hooks/record.mjs): the state folder. */
export function recordFile(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(statePaths(env).state, 'hooks-installed.json');
}

/** The settings files a project's `.claude` folder holds, which Claude Code reads when started in that folder. */
const CLAUDE_PROJECT_FILES = ['settings.json', 'settings.local.json'];

/**
 * The agents whose channel is installed for an agent started in `folder` (none given: one
 * started anywhere): recorded by `hooks` (their hooks in a settings file, or OpenCode's plugin,
 * still there), or named in the agent's usual settings file (an install made before the record
 * was kept, or by running scripts/install-agent-hooks.sh by hand). Claude Code's hooks in a
 * project (`hooks --project DIR`: DIR/.claude/settings.json) count only for an agent started
 * in that folder, as Claude Code reads them only there; a folder's own `.claude` settings that
 * name the hook count too (a project that keeps them, or one installed by hand). "+ Agent"
 * says so of an agent without.
 */
export function hooksInstalled(env: NodeJS.ProcessEnv = process.env, folder?: string): Set<AgentName> {
  const usual = (agent: AgentName): string => (agent === 'claude' ? path.join(claudeConfigDir(env), 'settings.json') : settingsFile(agent, env));
  const here = folder === undefined ? undefined : realOf(folder);
  const userClaude = realOf(usual('claude'));
  // The project a recorded Claude Code settings file belongs to, when it is a project's.
  const projectOf = (file: string): string | undefined => {
    const dir = path.dirname(file);
    return path.basename(dir) === '.claude' && CLAUDE_PROJECT_FILES.includes(path.basename(file)) && realOf(file) !== userClaude ? realOf(path.dirname(dir)) : undefined;
  };
  const recorded = readRecord(recordFile(env))
    .filter((e) => (e.part === 'hooks' || e.part === 'plugin') && fs.existsSync(e.file))
    .filter((e) => {
      const project = e.agent === 'claude' ? projectOf(e.file) : undefined;
      return project === undefined || project === here;
    })
    .map((e) => e.agent);
  const names = (file: string): boolean => {
    try {
      return fs.readFileSync(file, 'utf8').includes(path.basename(HOOK));
    } catch {
      return false;
    }
  };
  const inFolder = (agent: AgentName): boolean => agent === 'claude' && here !== undefined && CLAUDE_PROJECT_FILES.some((f) => names(path.join(here, '.claude', f)));
  return new Set(AGENT_NAMES.filter((agent) => recorded.includes(agent) || names(usual(agent)) || inFolder(agent)));
}

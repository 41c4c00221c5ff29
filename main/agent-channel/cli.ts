/**
 * `terminal-delight hooks [--agent claude|codex|gemini|opencode|all] [--uninstall] [Claude Code's options]`:
 * installs (or takes out) the agent channel's hooks for each agent chosen (by default
 * the agents found on PATH, or Claude Code when none is), merging into what is there,
 * idempotent, with a backup, and `--uninstall` giving the files back byte for byte:
 *
 * - Claude Code: scripts/install-agent-hooks.sh (its settings.json and the MCP server;
 *   `--project DIR`, `--settings FILE`, `--mcp-config FILE`, `--no-mcp` are its own);
 * - Codex: $CODEX_HOME/hooks.json (~/.codex/hooks.json);
 * - Gemini CLI: ~/.gemini/settings.json (its `hooks`);
 * - OpenCode: a plugin file, $XDG_CONFIG_HOME/opencode/plugin/terminal-delight.js.
 */
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AgentName } from '../../preload/contract.ts';
import { findProgram, userPath } from '../panes/env.ts';
import { AGENT_NAMES, AGENTS, isAgentName } from './agents/index.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const INSTALL_SCRIPT = path.join(ROOT, 'scripts', 'install-agent-hooks.sh');
const MERGE = path.join(ROOT, 'scripts', 'hooks', 'settings-merge.mjs');
const HOOK = path.join(ROOT, 'scripts', 'hooks', 'tdac-hook.sh');
const PLUGIN_TEMPLATE = path.join(ROOT, 'scripts', 'hooks', 'opencode-plugin.js');
const BIN = path.join(ROOT, 'bin', 'terminal-delight');

/**
 * Codex (0.171.0) runs a new or changed hook only once the person has trusted it in its
 * own review screen, and says nothing of untrusted hooks otherwise: the installer says so.
 */
export const CODEX_TRUST = 'Codex asks you to trust these hooks the next time it starts ("Hooks need review": choose "Trust all and continue"); until you do, they do not run.';

const home = (env: NodeJS.ProcessEnv) => (env.HOME && path.isAbsolute(env.HOME) ? env.HOME : os.homedir());

/** Where each agent's hook settings are, from the environment (as each agent finds them). */
export function settingsFile(agent: Exclude<AgentName, 'claude'>, env: NodeJS.ProcessEnv = process.env): string {
  switch (agent) {
    case 'codex': return path.join(env.CODEX_HOME && path.isAbsolute(env.CODEX_HOME) ? env.CODEX_HOME : path.join(home(env), '.codex'), 'hooks.json');
    case 'gemini': return path.join(home(env), '.gemini', 'settings.json');
    case 'opencode': return path.join(env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(home(env), '.config'), 'opencode', 'plugin', 'terminal-delight.js');
  }
}

/** The plugin file's text: the template with this app's hook path in it. */
export function pluginText(hookPath = HOOK): string {
  return fs.readFileSync(PLUGIN_TEMPLATE, 'utf8').replace("'@@HOOK@@'", JSON.stringify(hookPath));
}

/** Installs or takes out the OpenCode plugin file; returns the line saying what happened. */
export function opencodePlugin(mode: 'install' | 'uninstall', file: string, text = pluginText()): string {
  const ours = (t: string) => t.includes("Terminal Delight's OpenCode plugin");
  let current: string | undefined;
  try {
    current = fs.readFileSync(file, 'utf8');
  } catch {
    current = undefined;
  }
  if (mode === 'uninstall') {
    if (current === undefined) return `${file}: not there; nothing to take out`;
    if (!ours(current)) throw new Error(`${file} is not Terminal Delight's plugin: it was left as it is; remove it yourself if you mean to`);
    fs.rmSync(file);
    return `${file}: took out the plugin`;
  }
  if (current === text) return `${file}: the plugin is already installed; nothing changed`;
  if (current !== undefined && !ours(current)) throw new Error(`${file} exists and is not Terminal Delight's plugin: move it aside and run again; nothing was changed`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${crypto.randomBytes(4).toString('hex')}.tmp`;
  fs.writeFileSync(tmp, text, { mode: 0o644 });
  fs.renameSync(tmp, file);
  return `${file}: installed the plugin`;
}

function usage(): string {
  return [
    'Usage: terminal-delight hooks [--agent claude|codex|gemini|opencode|all] [--uninstall] [--project DIR] [--settings FILE] [--mcp-config FILE | --no-mcp]',
    '',
    'Installs the agent channel for each agent chosen (default: the agents found on PATH),',
    'merging into its settings; --uninstall takes out exactly what was put in.',
    '  claude    ~/.claude/settings.json and the MCP server in ~/.claude.json (--project, --settings, --mcp-config, --no-mcp)',
    '  codex     ~/.codex/hooks.json ($CODEX_HOME)',
    '  gemini    ~/.gemini/settings.json',
    '  opencode  ~/.config/opencode/plugin/terminal-delight.js ($XDG_CONFIG_HOME)',
    '',
  ].join('\n');
}

export async function run(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const chosen: AgentName[] = [];
  const claudeArgs: string[] = [];
  let uninstall = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--agent' || a.startsWith('--agent=')) {
      const value = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i];
      for (const name of (value ?? '').split(',')) {
        if (name === 'all') chosen.push(...AGENT_NAMES);
        else if (isAgentName(name)) chosen.push(name);
        else {
          process.stderr.write(`terminal-delight hooks: "${name}" is not an agent this app knows: choose from ${AGENT_NAMES.join(', ')} or all.\n`);
          return 2;
        }
      }
    } else if (a === '-h' || a === '--help') {
      process.stdout.write(usage());
      return 0;
    } else {
      if (a === '--uninstall') uninstall = true;
      claudeArgs.push(a);
    }
  }
  const vars = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => typeof e[1] === 'string'));
  let agents = [...new Set(chosen)];
  if (agents.length === 0) {
    // What the person installed: not this app's own node_modules/.bin (panes/env.ts).
    const user = { ...vars, PATH: userPath(env).join(path.delimiter) };
    agents = AGENT_NAMES.filter((n) => AGENTS[n].programs.some((p) => findProgram(p, user, home(env))));
    if (agents.length === 0) agents = ['claude'];
  }
  const onlyClaudeOptions = claudeArgs.filter((a) => a !== '--uninstall');
  if (onlyClaudeOptions.length > 0 && !agents.includes('claude')) {
    process.stderr.write(`terminal-delight hooks: ${onlyClaudeOptions[0]} is an option for Claude Code's hooks: add --agent claude, or leave it out.\n`);
    return 2;
  }
  let code = 0;
  for (const agent of agents) {
    const r = agent === 'claude'
      ? spawnSync('sh', [INSTALL_SCRIPT, ...claudeArgs], { stdio: 'inherit', env })
      : agent === 'opencode'
        ? (() => {
          try {
            process.stdout.write(`${opencodePlugin(uninstall ? 'uninstall' : 'install', settingsFile('opencode', env))}\n`);
            return { status: 0, error: undefined };
          } catch (e) {
            process.stderr.write(`terminal-delight hooks: ${(e as Error).message}\n`);
            return { status: 2, error: undefined };
          }
        })()
        : spawnSync(process.execPath, [MERGE, uninstall ? 'uninstall' : 'install', '--settings', settingsFile(agent, env), '--mcp', 'none', '--hook', HOOK, '--bin', BIN, '--agent', agent], { stdio: 'inherit', env: { ...env, ELECTRON_RUN_AS_NODE: '1' } });
    if (r.error) {
      process.stderr.write(`terminal-delight hooks: could not install ${AGENTS[agent].label}'s hooks (${r.error.message}): is sh on PATH?\n`);
      code = 1;
    } else if (r.status !== 0) {
      code = code || (r.status ?? 1);
    } else if (agent === 'codex' && !uninstall) {
      process.stdout.write(`${CODEX_TRUST}\n`);
    }
  }
  return code;
}

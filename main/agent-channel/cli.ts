/**
 * `terminal-delight hooks [--agent claude|codex|gemini|opencode|all] [--uninstall] [Claude Code's options]`:
 * installs (or takes out) the agent channel's hooks for each agent chosen (by default
 * the agents found on PATH; with none there and none named, nothing changes), merging into
 * what is there, idempotent, with a backup, and `--uninstall` giving the files back byte for
 * byte. Each file installed is noted in a record in the state folder
 * (`$XDG_STATE_HOME/terminal-delight/hooks-installed.json`, scripts/hooks/record.mjs), and
 * `--uninstall` takes out everything recorded for each agent, on PATH or not:
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
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AgentName } from '../../preload/contract.ts';
import { readRecord, recordAdd, recordRemove, type RecordEntry } from '../../scripts/hooks/record.mjs';
import { findProgram, userPath } from '../panes/env.ts';
import { homeOf } from '../paths.ts';
import { AGENT_NAMES, AGENTS, isAgentName } from './agents/index.ts';
import { HOOK, recordFile, settingsFile } from './hook-files.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const INSTALL_SCRIPT = path.join(ROOT, 'scripts', 'install-agent-hooks.sh');
const MERGE = path.join(ROOT, 'scripts', 'hooks', 'settings-merge.mjs');
const PLUGIN_TEMPLATE = path.join(ROOT, 'scripts', 'hooks', 'opencode-plugin.js');
const BIN = path.join(ROOT, 'bin', 'terminal-delight');

/**
 * Codex (0.171.0) runs a new or changed hook only once the person has trusted it in its
 * own review screen, and says nothing of untrusted hooks otherwise: the installer says so.
 */
export const CODEX_TRUST = 'Codex asks you to trust these hooks the next time it starts ("Hooks need review": choose "Trust all and continue"); until you do, they do not run.';

const home = homeOf;

/** The plugin file's text: the template with this app's hook path in it. */
export function pluginText(hookPath = HOOK): string {
  return fs.readFileSync(PLUGIN_TEMPLATE, 'utf8').replace("'@@HOOK@@'", JSON.stringify(hookPath));
}

/**
 * Installs or takes out the OpenCode plugin file; returns the line saying what happened and,
 * for an install, the topmost folder it made (`made`). Taking it out with `made` removes
 * the folders from the file's up to that one, where they are empty.
 */
export function opencodePlugin(mode: 'install' | 'uninstall', file: string, opts: { text?: string; made?: string } = {}): { line: string; made?: string } {
  const text = opts.text ?? pluginText();
  const ours = (t: string) => t.includes("Terminal Delight's OpenCode plugin");
  let current: string | undefined;
  try {
    current = fs.readFileSync(file, 'utf8');
  } catch {
    current = undefined;
  }
  if (mode === 'uninstall') {
    if (current === undefined) return { line: `${file}: not there; nothing to take out` };
    if (!ours(current)) throw new Error(`${file} is not Terminal Delight's plugin: it was left as it is; remove it yourself if you mean to`);
    fs.rmSync(file);
    if (opts.made && (path.dirname(file) + path.sep).startsWith(opts.made + path.sep)) {
      for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
        try {
          fs.rmdirSync(dir);
        } catch {
          break; // not empty: something else lives there now
        }
        if (dir === opts.made) break;
      }
    }
    return { line: `${file}: took out the plugin` };
  }
  if (current === text) return { line: `${file}: the plugin is already installed; nothing changed` };
  if (current !== undefined && !ours(current)) throw new Error(`${file} exists and is not Terminal Delight's plugin: move it aside and run again; nothing was changed`);
  let made: string | undefined;
  for (let dir = path.dirname(file); !fs.existsSync(dir); dir = path.dirname(dir)) made = dir;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${crypto.randomBytes(4).toString('hex')}.tmp`;
  fs.writeFileSync(tmp, text, { mode: 0o644 });
  fs.renameSync(tmp, file);
  return { line: `${file}: installed the plugin`, made };
}

function usage(): string {
  return [
    'Usage: terminal-delight hooks [--agent claude|codex|gemini|opencode|all] [--uninstall] [--project DIR] [--settings FILE] [--mcp-config FILE | --no-mcp]',
    '',
    'Installs the agent channel for each agent chosen (default: the agents found on PATH;',
    'with none there, nothing is changed), merging into its settings, and records what it',
    'installed in the state folder; --uninstall takes out exactly what was put in: everything',
    'recorded (for the agents named, or all), whether or not the agent is still on PATH.',
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
    } else if (/^--(project|settings|mcp-config)$/.test(a)) {
      // Its value (the script says so when it is missing).
      claudeArgs.push(a, ...(i + 1 < argv.length ? [argv[++i]!] : []));
    } else if (/^--(project|settings|mcp-config)=./.test(a) || a === '--no-mcp' || a === '--uninstall') {
      if (a === '--uninstall') uninstall = true;
      claudeArgs.push(a);
    } else {
      process.stderr.write(`terminal-delight hooks: unknown option "${a}": see --help.\n`);
      return 2;
    }
  }
  const vars = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => typeof e[1] === 'string'));
  // What the person installed: not this app's own node_modules/.bin (panes/env.ts).
  const user = { ...vars, PATH: userPath(env).join(path.delimiter) };
  const found = AGENT_NAMES.filter((n) => AGENTS[n].programs.some((p) => findProgram(p, user, home(env))));
  const record = recordFile(env);
  let agents = [...new Set(chosen)];
  if (agents.length === 0 && !uninstall) {
    agents = found;
    if (agents.length === 0) {
      process.stderr.write(`${NO_AGENT}\n`);
      return 1;
    }
  } else if (agents.length === 0) {
    const recorded = readRecord(record);
    agents = AGENT_NAMES.filter((n) => found.includes(n) || recorded.some((e) => e.agent === n));
    if (agents.length === 0) {
      process.stdout.write(`terminal-delight hooks: nothing to take out: no install is recorded in ${record} and no agent is on your PATH; to take one out all the same, name it with --agent, like --agent claude --uninstall.\n`);
      return 0;
    }
  }
  const onlyClaudeOptions = claudeArgs.filter((a) => a !== '--uninstall');
  if (onlyClaudeOptions.length > 0 && !agents.includes('claude')) {
    process.stderr.write(`terminal-delight hooks: ${onlyClaudeOptions[0]} is an option for Claude Code's hooks: add --agent claude, or leave it out.\n`);
    return 2;
  }
  // Claude Code's files named on the command line are taken out there, not from the record.
  const claudeFiles = claudeArgs.some((a) => /^--(project|settings|mcp-config)(=|$)/.test(a));
  const noMcp = claudeArgs.includes('--no-mcp');
  let code = 0;
  for (const agent of agents) {
    const recorded = readRecord(record).filter((e) => e.agent === agent && !(noMcp && e.part === 'mcp'));
    const steps = uninstall && recorded.length > 0 && !(agent === 'claude' && claudeFiles)
      ? recorded.map((e) => takeOut(e, record, env))
      : [usual(agent, uninstall ? 'uninstall' : 'install', claudeArgs, record, env)];
    for (const r of steps) {
      if (r.error) {
        process.stderr.write(`terminal-delight hooks: could not ${uninstall ? 'take out' : 'install'} ${AGENTS[agent].label}'s hooks (${r.error.message}): is sh on PATH?\n`);
        code = 1;
      } else if (r.status !== 0) {
        code = code || (r.status ?? 1);
      }
    }
    if (agent === 'codex' && !uninstall && code === 0) process.stdout.write(`${CODEX_TRUST}\n`);
  }
  return code;
}

/** Said when no agent is on PATH and none is named: nothing is changed. */
export const NO_AGENT = `terminal-delight hooks: no agent was found on your PATH (${AGENT_NAMES.join(', ')}), so nothing was changed: name the one to install for with --agent, like --agent claude.`;

type Step = { status: number | null; error?: Error };

/** settings-merge.mjs for one agent: its hooks in `settings` and (Claude Code) its MCP server in `mcp`, either 'none'. */
function merge(mode: 'install' | 'uninstall', settings: string, mcp: string, agent: AgentName, record: string, env: NodeJS.ProcessEnv): Step {
  return spawnSync(process.execPath, [MERGE, mode, '--settings', settings, '--mcp', mcp, '--hook', HOOK, '--bin', BIN, '--agent', agent, '--record', record], { stdio: 'inherit', env: { ...env, ELECTRON_RUN_AS_NODE: '1' } });
}

/** OpenCode's plugin file put in or taken out (with the folders the install made), and the record told. */
function plugin(mode: 'install' | 'uninstall', file: string, record: string, made?: string): Step {
  try {
    const r = opencodePlugin(mode, file, { made });
    process.stdout.write(`${r.line}\n`);
    if (mode === 'install') recordAdd(record, { agent: 'opencode', part: 'plugin', file, ...(r.made ? { made: r.made } : {}) });
    else recordRemove(record, { agent: 'opencode', part: 'plugin', file });
    return { status: 0 };
  } catch (e) {
    process.stderr.write(`terminal-delight hooks: ${(e as Error).message}\n`);
    return { status: 2 };
  }
}

/** An agent's install or uninstall where the agent reads it now (Claude Code: where its options say). */
function usual(agent: AgentName, mode: 'install' | 'uninstall', claudeArgs: string[], record: string, env: NodeJS.ProcessEnv): Step {
  if (agent === 'claude') return spawnSync('sh', [INSTALL_SCRIPT, '--record', record, ...claudeArgs], { stdio: 'inherit', env });
  if (agent === 'opencode') return plugin(mode, settingsFile('opencode', env), record);
  return merge(mode, settingsFile(agent, env), 'none', agent, record, env);
}

/** Takes out one thing the record says was installed, wherever it is. */
function takeOut(e: RecordEntry, record: string, env: NodeJS.ProcessEnv): Step {
  if (e.part === 'plugin') return plugin('uninstall', e.file, record, e.made);
  return merge('uninstall', e.part === 'hooks' ? e.file : 'none', e.part === 'mcp' ? e.file : 'none', e.agent as AgentName, record, env);
}

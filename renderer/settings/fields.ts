/**
 * The settings screen's fields: every setting of the contract's Settings, grouped, with
 * a label and one line of help, and how a person's input becomes a value (checked here
 * first, then by the core). Pure: the dialog and its tests feed plain values.
 */
import type { AgentName, SearchSettings, SearchSource, Settings, SettingsPatch } from '../../preload/contract.ts';
import { parseCommandLine } from '../../common/argv.ts';

export const GROUPS = ['Appearance', 'Terminal', 'Agents', 'MCP', 'Search', 'Windows and panes', 'Worktrees'] as const;
export type Group = (typeof GROUPS)[number];

/** A field of settings.search: one of its fields, one agent's place in its mcpAgents, or one source's in its leaveOut. */
export type SearchSub = Exclude<keyof SearchSettings, 'mcpAgents' | 'leaveOut'> | `mcp:${AgentName}` | `leave:${SearchSource}`;

interface FieldBase { key: keyof Settings; sub?: SearchSub; group: Group; label: string; help: string }

export type Field =
  | (FieldBase & { kind: 'toggle' })
  | (FieldBase & { kind: 'choice'; choices: Array<{ value: string; label: string }> })
  | (FieldBase & { kind: 'number'; min: number; max: number; step: number })
  | (FieldBase & { kind: 'text' | 'command'; placeholder: string });

const mcpSearch = (agent: AgentName, name: string): Field => ({ key: 'search', sub: `mcp:${agent}`, group: 'MCP', label: `Search history for ${name}`, kind: 'toggle', help: `${name} may look up what happened in your panes with the MCP tool search_history; off by default.` });

/** One source of the index (on: indexed; off: in search.leaveOut, nothing new of it indexed). */
const indexed = (source: SearchSource, label: string, help: string): Field => ({ key: 'search', sub: `leave:${source}`, group: 'Search', label: `Index ${label}`, kind: 'toggle', help: `${help.replace(/\.$/, '')}; off, nothing new of it is indexed.` });

export const FIELDS: readonly Field[] = [
  { key: 'theme', group: 'Appearance', label: 'Theme', kind: 'choice', help: 'Follow the system\'s light or dark setting, or choose one.', choices: [{ value: 'system', label: 'System' }, { value: 'light', label: 'Light' }, { value: 'dark', label: 'Dark' }] },
  { key: 'fontFamily', group: 'Appearance', label: 'Terminal font', kind: 'text', placeholder: 'the built-in monospace fonts', help: 'A CSS font family for the terminals, such as "JetBrains Mono"; empty: the built-in list.' },
  { key: 'fontSize', group: 'Appearance', label: 'Font size', kind: 'number', min: 6, max: 72, step: 1, help: 'Terminal text size in pixels; Ctrl+= and Ctrl+- change it too.' },
  { key: 'scrollback', group: 'Terminal', label: 'Scrollback', kind: 'number', min: 0, max: 1_000_000, step: 1000, help: 'Lines each terminal keeps above its screen.' },
  { key: 'copyOnSelect', group: 'Terminal', label: 'Copy on select', kind: 'toggle', help: 'Selecting text in a terminal copies it.' },
  { key: 'shellIntegration', group: 'Terminal', label: 'Shell integration', kind: 'toggle', help: 'Prompt marks, folder and exit status from bash, zsh and fish; new panes only.' },
  { key: 'agentCommand', group: 'Agents', label: 'Agent command', kind: 'command', placeholder: 'claude', help: 'What New agent pane (Ctrl+Shift+A) runs, split like a shell would; nothing is expanded.' },
  { key: 'notifications', group: 'Agents', label: 'Desktop notifications', kind: 'toggle', help: 'Say so on the desktop when an agent is blocked or done, or a Tick fails.' },
  { key: 'mcpServer', group: 'MCP', label: 'MCP server', kind: 'toggle', help: 'Agents reach this app with `terminal-delight mcp`; off: it answers none of them.' },
  { key: 'mcpWrites', group: 'MCP', label: 'MCP writes', kind: 'toggle', help: 'Agents may put surfaces on benches and call Ticks; off: they may only read.' },
  mcpSearch('claude', 'Claude Code'),
  mcpSearch('codex', 'Codex'),
  mcpSearch('gemini', 'Gemini CLI'),
  mcpSearch('opencode', 'OpenCode'),
  { key: 'search', sub: 'enabled', group: 'Search', label: 'Index for search', kind: 'toggle', help: 'Keep pane output, commands, agents\' prompts and replies, decisions and Tick calls searchable (Ctrl+Shift+F).' },
  indexed('output', 'pane output', 'Every line a pane printed, also what scrolled out and what ended panes kept.'),
  indexed('commands', 'commands', 'The commands shells ran, with their exit status and folder (shell integration).'),
  indexed('agents', 'agents\' prompts, replies and tool runs', 'What the agents\' hooks write: your prompts, their replies, each tool run with what it printed.'),
  indexed('cards', 'cards and decisions', 'The surfaces on the benches and what was decided on them, with comments.'),
  indexed('ticks', 'Tick calls', 'Each call of a Tick\'s tool and how it ended.'),
  { key: 'search', sub: 'keepDays', group: 'Search', label: 'Keep for days', kind: 'number', min: 0, max: 36_500, step: 1, help: 'Days an entry stays in the search index; 0 keeps everything.' },
  { key: 'search', sub: 'excludePanes', group: 'Search', label: 'Panes left out', kind: 'text', placeholder: 'none', help: 'Pane ids or tags, separated by spaces or commas, whose output and agents are never indexed.' },
  { key: 'windowClose', group: 'Windows and panes', label: 'Closing the last window', kind: 'choice', help: 'Keep every pane running without a window, or end them all.', choices: [{ value: 'keep', label: 'Keeps panes running' }, { value: 'end', label: 'Ends every pane' }] },
  { key: 'resumeAtStart', group: 'Windows and panes', label: 'Resume at start', kind: 'choice', help: 'Panes that were running when the app last stopped: which start again.', choices: [{ value: 'none', label: 'None' }, { value: 'shells', label: 'Plain shells' }, { value: 'all', label: 'All panes' }] },
  { key: 'worktreeFolder', group: 'Worktrees', label: 'Worktree folder', kind: 'text', placeholder: 'beside the repository', help: 'Where new agent worktrees go, an absolute folder; empty: <repository>.worktrees/ beside it.' },
  { key: 'worktreeSetup', group: 'Worktrees', label: 'Worktree setup', kind: 'text', placeholder: 'none', help: 'A shell command run in a new worktree before its agent starts, such as npm ci; empty: none.' },
];

/** argv as one command line that parseCommandLine reads back the same. */
export function commandLine(argv: readonly string[]): string {
  return argv.map((w) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/** The field's name: its setting's key, or `search.<field>` for one of the search settings. */
export function fieldId(field: Field): string {
  return field.sub ? `${field.key}.${field.sub}` : field.key;
}

/** The change a field's value makes (a search field changes only its part of settings.search). */
export function patchFor(field: Field, value: Settings[keyof Settings], settings: Settings): SettingsPatch {
  if (!field.sub) return { [field.key]: value } as SettingsPatch;
  if (field.sub.startsWith('mcp:')) {
    const agent = field.sub.slice(4) as AgentName;
    const rest = settings.search.mcpAgents.filter((a) => a !== agent);
    return { search: { mcpAgents: value === true ? [...rest, agent] : rest } };
  }
  if (field.sub.startsWith('leave:')) {
    const source = field.sub.slice(6) as SearchSource;
    const rest = settings.search.leaveOut.filter((x) => x !== source);
    return { search: { leaveOut: value === true ? rest : [...rest, source] } };
  }
  if (field.sub === 'excludePanes') return { search: { excludePanes: String(value).split(/[\s,]+/).filter(Boolean) } };
  return { search: { [field.sub]: value } };
}

/** What the field shows for a setting's value. */
export function shown(field: Field, settings: Settings): string | boolean {
  if (field.sub?.startsWith('mcp:')) return settings.search.mcpAgents.includes(field.sub.slice(4) as AgentName);
  if (field.sub?.startsWith('leave:')) return !settings.search.leaveOut.includes(field.sub.slice(6) as SearchSource);
  if (field.sub === 'excludePanes') return settings.search.excludePanes.join(' ');
  if (field.sub) return field.kind === 'toggle' ? settings.search[field.sub as 'enabled'] === true : String(settings.search[field.sub as keyof SearchSettings]);
  const v = settings[field.key];
  if (field.kind === 'command') return commandLine(v as string[]);
  if (field.kind === 'toggle') return v === true;
  return String(v);
}

/** A person's input as the setting's value, or one sentence on what to change. */
export function parseInput(field: Field, input: string | boolean): { ok: true; value: Settings[keyof Settings] } | { ok: false; error: string } {
  switch (field.kind) {
    case 'toggle':
      return { ok: true, value: input === true };
    case 'choice':
      return field.choices.some((c) => c.value === input) ? { ok: true, value: input as never } : { ok: false, error: `Choose one of ${field.choices.map((c) => c.label).join(', ')}.` };
    case 'number': {
      const text = String(input).trim();
      const n = Number(text);
      if (text === '' || !Number.isInteger(n) || n < field.min || n > field.max) return { ok: false, error: `${field.label} is a whole number from ${field.min} to ${field.max.toLocaleString('en')}.` };
      return { ok: true, value: n };
    }
    case 'command': {
      if (!String(input).trim()) return { ok: false, error: 'Give the command that starts your agent, for example claude.' };
      const parsed = parseCommandLine(String(input));
      if (!parsed.ok) return { ok: false, error: parsed.error };
      if (parsed.argv.length === 0) return { ok: false, error: 'Give the command that starts your agent, for example claude.' };
      return { ok: true, value: parsed.argv };
    }
    case 'text':
      return { ok: true, value: String(input).trim() };
  }
}

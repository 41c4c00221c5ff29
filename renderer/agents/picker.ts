/**
 * "+ Agent": which agent a new agent pane runs. Whether the chooser shows (and beside
 * which pane the agent starts), and its rows, made from 'agent.available' and
 * settings.agentCommand. Pure but for the small store.
 */
import { createStore } from 'zustand/vanilla';
import type { AgentName, AvailableAgent } from '../../preload/contract.ts';
import { splitPaneId } from '../../common/pane-id.ts';

export interface AgentPickerUi {
  open: boolean;
  /** Rises each time the chooser is asked for (a shortcut while it shows refocuses it). */
  n: number;
  /** The pane the new agent pane splits (the focused one when asked). */
  splitOf?: string;
}

export const agentPickerUi = createStore<AgentPickerUi>()(() => ({ open: false, n: 0 }));

export function showAgentPicker(splitOf?: string): void {
  agentPickerUi.setState((s) => ({ open: true, n: s.n + 1, splitOf }));
}

export function hideAgentPicker(): void {
  agentPickerUi.setState({ open: false });
}

/** One row of the chooser. */
export interface PickerRow {
  key: string;
  name?: AgentName;
  label: string;
  /** What 'agent.new' runs. */
  command: string[];
  installed: boolean;
  /** settings.agentCommand: what Ctrl+Shift+A then Enter starts. */
  configured: boolean;
  /** One line under the label: where it is, or how to install it. */
  detail: string;
  /** How to install it, when it is not. */
  install?: string;
  /** An installed agent whose hooks are not installed: the command that installs them (its status, questions and permission prompts need them). */
  hooksCommand?: string;
}

/** The program's own name, without its folder. */
const base = (p: string): string => p.slice(p.lastIndexOf('/') + 1);

/**
 * The chooser's rows: the agents the core knows, in its order (the configured one first,
 * then the installed ones, then the rest); settings.agentCommand comes first as a row of
 * its own when it starts no agent the app knows (aider, a wrapper script).
 */
export function pickerRows(agents: readonly AvailableAgent[], agentCommand: readonly string[]): PickerRow[] {
  const rows: PickerRow[] = agents.map((a) => ({
    key: a.name,
    name: a.name,
    label: a.label,
    command: [...a.command],
    installed: a.installed,
    configured: a.configured === true,
    detail: a.installed ? `${a.command.join(' ')}${a.path ? ` · ${a.path}` : ''}` : `Install with: ${a.install ?? `your package manager (${a.command[0]})`}`,
    ...(a.installed ? {} : { install: a.install ?? `install ${a.command[0]}` }),
    ...(a.installed && a.hooks === false ? { hooksCommand: `terminal-delight hooks --agent ${a.name}` } : {}),
  }));
  if (agentCommand.length > 0 && agentCommand[0] && !agents.some((a) => a.configured)) {
    rows.unshift({ key: 'settings', label: base(agentCommand[0]), command: [...agentCommand], installed: true, configured: true, detail: `${agentCommand.join(' ')} · settings.agentCommand` });
  }
  return rows;
}

/** The row a key press moves to (↑ ↓ Home End), wrapping at the ends; every row is reachable, installed or not. */
export function moveActive(active: number, count: number, key: string): number {
  if (count === 0) return 0;
  switch (key) {
    case 'ArrowDown': return (active + 1) % count;
    case 'ArrowUp': return (active - 1 + count) % count;
    case 'Home': return 0;
    case 'End': return count - 1;
    default: return active;
  }
}

/** The row the chooser starts on: the first installed one (the configured agent, when it is). */
export function firstActive(rows: readonly PickerRow[]): number {
  const i = rows.findIndex((r) => r.installed);
  return i < 0 ? 0 : i;
}

/**
 * What "+ Agent" asks 'agent.available' for the agent it would start beside `beside` (the pane
 * split) on `machine` ('' this one): this machine's pane, when the agent starts here (whether a
 * project's hooks count depends on its folder), else the machine alone (a far service may be a
 * version whose contract takes no `splitOf`: a project's hooks there count nowhere).
 */
export function availableAsk(beside: string | null | undefined, machine: string): { splitOf?: string; machine?: string } {
  if (machine) return { machine };
  return beside && splitPaneId(beside).machine === undefined ? { splitOf: beside } : {};
}

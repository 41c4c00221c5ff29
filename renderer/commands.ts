/**
 * What the window's commands do: from buttons, keyboard shortcuts and the
 * contract's 'command' event (Electron's menu) alike. Each command calls the core
 * and updates the store through its named actions; failures become one notice.
 */
import type { PaneInfo, Settings, TdApi } from '../preload/contract.ts';
import type { WindowCommand } from './keys.ts';
import { cyclePane, neighbour, type Direction } from './panes/layout.ts';
import { zoomed, type WindowStore } from './store/store.ts';
import { showOpenTick } from './agents/ui.ts';
import { showAgentPicker } from './agents/picker.ts';
import { showWorktreeDialog } from './agents/worktrees.ts';
import { NEEDS_SERVICE, serviceUi, showQuit } from './service/ui.ts';
import { showSettings } from './settings/ui.ts';
import { showSearch } from './search/ui.ts';
import { showUsage } from './usage/ui.ts';

/** The little the commands need of a pane's terminal. */
export interface TerminalHandle {
  copySelection(): Promise<void>;
  pasteFromClipboard(): Promise<void>;
  /** Scroll to the previous (-1) or next (+1) prompt (shell integration). */
  jumpToPrompt?(dir: -1 | 1): boolean;
  /** Whether the terminal knows prompts to jump to and shows the normal screen. */
  canJumpToPrompt?(): boolean;
}

export interface CommandContext {
  api: TdApi;
  store: WindowStore;
  terminal(paneId: string): TerminalHandle | undefined;
}

function report(ctx: CommandContext, what: string, err: unknown): void {
  const msg = err instanceof Error ? err.message : String(err);
  ctx.store.getState().notice(`${what} failed: ${msg}`);
}

/** Focus a pane: in the store (and the keyboard), and tell the core. */
export function focusPane(ctx: CommandContext, paneId: string, take = true): void {
  const s = ctx.store.getState();
  const changed = s.focused !== paneId;
  s.focusPane(paneId, take);
  if (changed) ctx.api.invoke('pane.focus', { paneId }).catch(() => { /* focus is a hint */ });
}

/** A new pane beside `paneId` (the focused one): split `direction` when asked, else where there is room. */
export async function splitPane(ctx: CommandContext, direction?: 'right' | 'down', paneId?: string, machine?: string): Promise<void> {
  const s = ctx.store.getState();
  const splitOf = paneId ?? s.focused ?? undefined;
  try {
    // `machine`: a new pane on that machine, beside the focused pane (a split of a far pane goes on its machine anyway).
    const info = await ctx.api.invoke('pane.create', { ...(splitOf ? { splitOf, ...(direction ? { direction } : {}) } : {}), ...(machine ? { machine } : {}) });
    ctx.store.getState().paneUpdated(info);
    focusPane(ctx, info.id, true);
  } catch (err) {
    report(ctx, direction ? 'Splitting the pane' : 'Opening a new pane', err);
  }
}

/**
 * Starts an agent pane beside `paneId` (the focused one): `command`, or
 * settings.agentCommand. Returns the pane; a failure goes to `onError` (else a notice).
 */
export async function newAgent(ctx: CommandContext, paneId?: string, command?: string[], onError?: (message: string) => void, machine?: string): Promise<PaneInfo | undefined> {
  const splitOf = paneId ?? ctx.store.getState().focused ?? undefined;
  try {
    const info = await ctx.api.invoke('agent.new', { ...(command ? { command } : {}), ...(splitOf ? { splitOf } : {}), ...(machine !== undefined ? { machine } : {}) });
    ctx.store.getState().paneUpdated(info);
    focusPane(ctx, info.id, true);
    return info;
  } catch (err) {
    if (onError) onError(err instanceof Error ? err.message : String(err));
    else report(ctx, 'Starting an agent pane', err);
    return undefined;
  }
}

export async function closePane(ctx: CommandContext, paneId?: string): Promise<void> {
  const id = paneId ?? ctx.store.getState().focused;
  if (!id) return;
  try {
    await ctx.api.invoke('pane.close', { paneId: id });
  } catch (err) {
    report(ctx, 'Closing the pane', err);
  }
}

export async function restartPane(ctx: CommandContext, paneId: string): Promise<void> {
  try {
    const info = await ctx.api.invoke('pane.restart', { paneId });
    ctx.store.getState().paneUpdated(info);
    focusPane(ctx, paneId, true);
  } catch (err) {
    report(ctx, 'Restarting the pane', err);
  }
}

export async function toggleBench(ctx: CommandContext, paneId?: string): Promise<void> {
  const s = ctx.store.getState();
  const id = paneId ?? s.focused;
  const pane = id ? s.panes[id] : undefined;
  if (!pane) return;
  const open = !pane.benchOpen;
  s.paneUpdated({ ...pane, benchOpen: open });
  try {
    await ctx.api.invoke('bench.set', { paneId: pane.id, open });
  } catch (err) {
    const now = ctx.store.getState().panes[pane.id];
    if (now) ctx.store.getState().paneUpdated({ ...now, benchOpen: !open });
    report(ctx, open ? 'Opening the bench' : 'Closing the bench', err);
  }
}

export async function zoom(ctx: CommandContext, step: 1 | -1 | 0): Promise<void> {
  const s = ctx.store.getState();
  const fontSize = zoomed(s.settings.fontSize, step);
  if (fontSize === s.settings.fontSize) return;
  s.settingsChanged({ ...s.settings, fontSize });
  try {
    const settings = await ctx.api.invoke('settings.set', { fontSize });
    ctx.store.getState().settingsChanged(settings);
  } catch (err) {
    report(ctx, 'Saving the font size', err);
  }
}

const THEME_ORDER: Settings['theme'][] = ['system', 'light', 'dark'];

/** Cycle the theme setting: system → light → dark → system (saved). */
export async function cycleTheme(ctx: CommandContext): Promise<void> {
  const s = ctx.store.getState();
  const theme = THEME_ORDER[(THEME_ORDER.indexOf(s.settings.theme) + 1) % THEME_ORDER.length]!;
  s.settingsChanged({ ...s.settings, theme });
  try {
    ctx.store.getState().settingsChanged(await ctx.api.invoke('settings.set', { theme }));
  } catch (err) {
    report(ctx, 'Saving the theme', err);
  }
}

export function moveFocus(ctx: CommandContext, how: Direction | 'next' | 'prev'): void {
  const s = ctx.store.getState();
  const target = how === 'next' || how === 'prev'
    ? cyclePane(s.layout, s.focused, how === 'next' ? 1 : -1)
    : s.focused ? neighbour(s.layout, s.focused, how) : cyclePane(s.layout, null, 1);
  if (target) focusPane(ctx, target, true);
}

export function toggleFind(ctx: CommandContext, paneId?: string): void {
  const s = ctx.store.getState();
  const id = paneId ?? s.focused;
  if (!id) return;
  if (s.findPane === id) s.closeFind();
  else s.openFind(id);
}

/**
 * Whether a shortcut's command applies now, or its keys belong to the terminal: the prompt
 * jumps (Ctrl+Up / Ctrl+Down) apply only where the shell marks its prompts and no
 * full-screen program runs, so vim, less and shells without the integration keep those keys.
 */
export function commandWanted(ctx: CommandContext, cmd: WindowCommand, paneId?: string): boolean {
  if (cmd !== 'prompt-prev' && cmd !== 'prompt-next') return true;
  const id = paneId ?? ctx.store.getState().focused;
  return !!id && !!ctx.terminal(id)?.canJumpToPrompt?.();
}

/** Commands that start a pane, an agent, a Tick or a machine: they need a running service. */
const STARTS: ReadonlySet<WindowCommand> = new Set(['split-right', 'split-down', 'new-pane', 'new-agent', 'open-tick', 'new-agent-worktree']);

/** Run a command by name (shortcut, menu or button), for the given pane or the focused one. */
export function runCommand(ctx: CommandContext, cmd: WindowCommand, paneId?: string): void {
  const id = paneId ?? ctx.store.getState().focused ?? undefined;
  // Stopped on purpose: what would start something says why, as its button's title does.
  if (serviceUi.getState().stopped !== null && STARTS.has(cmd)) {
    ctx.store.getState().notice(`${NEEDS_SERVICE}.`, 'info');
    return;
  }
  switch (cmd) {
    case 'split-right': void splitPane(ctx, 'right', id); break;
    case 'split-down': void splitPane(ctx, 'down', id); break;
    case 'close-pane': void closePane(ctx, id); break;
    case 'new-pane': void splitPane(ctx, undefined, id); break;
    case 'new-agent': showAgentPicker(id ?? undefined); break;
    case 'open-tick': showOpenTick(); break;
    case 'new-agent-worktree': showWorktreeDialog(); break;
    case 'quit-all': showQuit(); break;
    case 'open-settings': showSettings(); break;
    case 'focus-pane': if (paneId) focusPane(ctx, paneId, true); break;
    case 'toggle-bench': void toggleBench(ctx, id); break;
    case 'zoom-in': void zoom(ctx, 1); break;
    case 'zoom-out': void zoom(ctx, -1); break;
    case 'zoom-reset': void zoom(ctx, 0); break;
    case 'find': toggleFind(ctx, id); break;
    case 'search-everything': showSearch(); break;
    case 'show-usage': showUsage(); break;
    case 'focus-next': moveFocus(ctx, 'next'); break;
    case 'focus-prev': moveFocus(ctx, 'prev'); break;
    case 'focus-left': moveFocus(ctx, 'left'); break;
    case 'focus-right': moveFocus(ctx, 'right'); break;
    case 'focus-up': moveFocus(ctx, 'up'); break;
    case 'focus-down': moveFocus(ctx, 'down'); break;
    case 'copy': if (id) void ctx.terminal(id)?.copySelection(); break;
    case 'paste': if (id) void ctx.terminal(id)?.pasteFromClipboard(); break;
    case 'prompt-prev': if (id) ctx.terminal(id)?.jumpToPrompt?.(-1); break;
    case 'prompt-next': if (id) ctx.terminal(id)?.jumpToPrompt?.(1); break;
  }
}

/**
 * Keyboard shortcuts of the window, as a pure function from a key event to a
 * command. The primary modifier is Ctrl (Cmd on macOS).
 */
import type { AppCommand } from '../preload/contract.ts';

export type WindowCommand =
  | AppCommand
  | 'focus-left' | 'focus-right' | 'focus-up' | 'focus-down'
  | 'copy' | 'paste'
  /** Scroll to the previous / next prompt in the pane's scrollback (shell integration). */
  | 'prompt-prev' | 'prompt-next';

export interface KeyLike {
  key: string;
  code: string;
  ctrlKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
  metaKey: boolean;
}

const ARROWS: Record<string, WindowCommand> = {
  ArrowLeft: 'focus-left',
  ArrowRight: 'focus-right',
  ArrowUp: 'focus-up',
  ArrowDown: 'focus-down',
};

const SHIFTED_LETTERS: Record<string, WindowCommand> = {
  KeyD: 'split-right',
  KeyE: 'split-down',
  KeyW: 'close-pane',
  KeyF: 'search-everything',
  KeyL: 'find',
  KeyU: 'show-usage',
  KeyB: 'toggle-bench',
  KeyA: 'new-agent',
  KeyG: 'new-agent-worktree',
  KeyT: 'new-pane',
  KeyO: 'open-tick',
  KeyQ: 'quit-all',
  KeyC: 'copy',
  KeyV: 'paste',
  BracketRight: 'focus-next',
  BracketLeft: 'focus-prev',
};

/**
 * Ctrl+W alone (not on macOS, where the primary key is Cmd): a shell's delete-word, which
 * browsers and Electron's default menu take to close the window. It always belongs to the
 * terminal; the window never closes on it.
 */
export function isDeleteWord(e: KeyLike, platform = ''): boolean {
  return platform !== 'darwin' && e.ctrlKey && !e.shiftKey && !e.altKey && !e.metaKey && e.code === 'KeyW';
}

/** The command a key press runs, if any. */
export function commandForKey(e: KeyLike, platform = ''): WindowCommand | undefined {
  const mac = platform === 'darwin';
  const primary = mac ? e.metaKey : e.ctrlKey;
  const other = mac ? e.ctrlKey : e.metaKey;
  if (other) return undefined;
  // Alt+Arrow moves focus (no other modifier).
  if (e.altKey && !primary && !e.shiftKey && ARROWS[e.key]) return ARROWS[e.key];
  if (!primary || e.altKey) return undefined;
  if (e.shiftKey) {
    if (ARROWS[e.key]) return ARROWS[e.key];
    const byCode = SHIFTED_LETTERS[e.code];
    if (byCode) return byCode;
    if (e.key === '+') return 'zoom-in';
    if (e.key === '_') return 'zoom-out';
    return undefined;
  }
  if (e.key === 'ArrowUp') return 'prompt-prev';
  if (e.key === 'ArrowDown') return 'prompt-next';
  if (e.key === '=' || e.key === '+') return 'zoom-in';
  if (e.key === '-') return 'zoom-out';
  if (e.key === '0') return 'zoom-reset';
  if (e.key === ',') return 'open-settings';
  return undefined;
}

/** The shortcut shown in tooltips for a command. */
export function shortcutLabel(cmd: WindowCommand, platform = ''): string {
  const p = platform === 'darwin' ? '⌘' : 'Ctrl+';
  const labels: Partial<Record<WindowCommand, string>> = {
    'split-right': `${p}Shift+D`,
    'split-down': `${p}Shift+E`,
    'close-pane': `${p}Shift+W`,
    'find': `${p}Shift+L`,
    'search-everything': `${p}Shift+F`,
    'show-usage': `${p}Shift+U`,
    'toggle-bench': `${p}Shift+B`,
    'new-agent': `${p}Shift+A`,
    'new-agent-worktree': `${p}Shift+G`,
    'new-pane': `${p}Shift+T`,
    'open-tick': `${p}Shift+O`,
    'quit-all': `${p}Shift+Q`,
    'zoom-in': `${p}=`,
    'zoom-out': `${p}-`,
    'zoom-reset': `${p}0`,
    'prompt-prev': `${p}Up`,
    'prompt-next': `${p}Down`,
    'open-settings': `${p},`,
  };
  return labels[cmd] ?? '';
}

import { describe, expect, it } from 'vitest';
import { commandForKey, isDeleteWord, shortcutLabel, type KeyLike } from './keys.ts';

const k = (key: string, code: string, mods: Partial<KeyLike> = {}): KeyLike => ({
  key, code, ctrlKey: false, shiftKey: false, altKey: false, metaKey: false, ...mods,
});

describe('commandForKey', () => {
  it('maps Ctrl+Shift letters by physical key', () => {
    expect(commandForKey(k('D', 'KeyD', { ctrlKey: true, shiftKey: true }))).toBe('split-right');
    expect(commandForKey(k('E', 'KeyE', { ctrlKey: true, shiftKey: true }))).toBe('split-down');
    expect(commandForKey(k('W', 'KeyW', { ctrlKey: true, shiftKey: true }))).toBe('close-pane');
    expect(commandForKey(k('F', 'KeyF', { ctrlKey: true, shiftKey: true }))).toBe('search-everything');
    expect(commandForKey(k('L', 'KeyL', { ctrlKey: true, shiftKey: true }))).toBe('find');
    // Ctrl+Alt+F is the terminal's (Emacs' C-M-f, AltGr+F on some layouts): not the find.
    expect(commandForKey(k('f', 'KeyF', { ctrlKey: true, altKey: true }))).toBeUndefined();
    expect(commandForKey(k('H', 'KeyH', { ctrlKey: true, shiftKey: true }))).toBeUndefined();
    expect(commandForKey(k('U', 'KeyU', { ctrlKey: true, shiftKey: true }))).toBe('show-usage');
    expect(commandForKey(k('B', 'KeyB', { ctrlKey: true, shiftKey: true }))).toBe('toggle-bench');
    expect(commandForKey(k('C', 'KeyC', { ctrlKey: true, shiftKey: true }))).toBe('copy');
    expect(commandForKey(k('V', 'KeyV', { ctrlKey: true, shiftKey: true }))).toBe('paste');
    expect(commandForKey(k('A', 'KeyA', { ctrlKey: true, shiftKey: true }))).toBe('new-agent');
    expect(commandForKey(k('O', 'KeyO', { ctrlKey: true, shiftKey: true }))).toBe('open-tick');
    expect(commandForKey(k('G', 'KeyG', { ctrlKey: true, shiftKey: true }))).toBe('new-agent-worktree');
  });
  it('leaves plain Ctrl letters to the terminal (Ctrl-C, Ctrl-D)', () => {
    expect(commandForKey(k('c', 'KeyC', { ctrlKey: true }))).toBeUndefined();
    expect(commandForKey(k('d', 'KeyD', { ctrlKey: true }))).toBeUndefined();
    expect(commandForKey(k('d', 'KeyD'))).toBeUndefined();
  });
  it('moves focus with Ctrl+Shift+Arrow and Alt+Arrow', () => {
    expect(commandForKey(k('ArrowLeft', 'ArrowLeft', { ctrlKey: true, shiftKey: true }))).toBe('focus-left');
    expect(commandForKey(k('ArrowDown', 'ArrowDown', { altKey: true }))).toBe('focus-down');
    expect(commandForKey(k('ArrowUp', 'ArrowUp', { altKey: true, shiftKey: true }))).toBeUndefined();
    expect(commandForKey(k('ArrowUp', 'ArrowUp'))).toBeUndefined();
  });
  it('opens the settings with Ctrl+, (Cmd+, on macOS)', () => {
    expect(commandForKey(k(',', 'Comma', { ctrlKey: true }))).toBe('open-settings');
    expect(commandForKey(k(',', 'Comma', { metaKey: true }), 'darwin')).toBe('open-settings');
    expect(commandForKey(k(',', 'Comma', { ctrlKey: true }), 'darwin')).toBeUndefined();
    expect(commandForKey(k(',', 'Comma'))).toBeUndefined();
    expect(shortcutLabel('open-settings')).toBe('Ctrl+,');
    expect(shortcutLabel('open-settings', 'darwin')).toBe('⌘,');
  });
  it('zooms with Ctrl+= / Ctrl+- / Ctrl+0', () => {
    expect(commandForKey(k('=', 'Equal', { ctrlKey: true }))).toBe('zoom-in');
    expect(commandForKey(k('+', 'Equal', { ctrlKey: true, shiftKey: true }))).toBe('zoom-in');
    expect(commandForKey(k('-', 'Minus', { ctrlKey: true }))).toBe('zoom-out');
    expect(commandForKey(k('0', 'Digit0', { ctrlKey: true }))).toBe('zoom-reset');
  });
  it('uses Cmd on macOS and leaves Ctrl to the terminal there', () => {
    expect(commandForKey(k('D', 'KeyD', { metaKey: true, shiftKey: true }), 'darwin')).toBe('split-right');
    expect(commandForKey(k('D', 'KeyD', { ctrlKey: true, shiftKey: true }), 'darwin')).toBeUndefined();
    expect(commandForKey(k('D', 'KeyD', { metaKey: true, shiftKey: true }), 'linux')).toBeUndefined();
  });
  it('jumps between prompts with Ctrl+Up / Ctrl+Down (Cmd on macOS), leaving Shift and Alt arrows alone', () => {
    expect(commandForKey(k('ArrowUp', 'ArrowUp', { ctrlKey: true }))).toBe('prompt-prev');
    expect(commandForKey(k('ArrowDown', 'ArrowDown', { ctrlKey: true }))).toBe('prompt-next');
    expect(commandForKey(k('ArrowUp', 'ArrowUp', { metaKey: true }), 'darwin')).toBe('prompt-prev');
    expect(commandForKey(k('ArrowUp', 'ArrowUp', { ctrlKey: true }), 'darwin')).toBeUndefined();
    expect(commandForKey(k('ArrowUp', 'ArrowUp', { ctrlKey: true, shiftKey: true }))).toBe('focus-up');
    expect(commandForKey(k('ArrowUp', 'ArrowUp', { ctrlKey: true, altKey: true }))).toBeUndefined();
    expect(shortcutLabel('prompt-prev')).toBe('Ctrl+Up');
  });
  it('ignores Ctrl+Alt combinations', () => {
    expect(commandForKey(k('D', 'KeyD', { ctrlKey: true, shiftKey: true, altKey: true }))).toBeUndefined();
  });
});

describe('shortcutLabel', () => {
  it('names the shortcut per platform', () => {
    expect(shortcutLabel('split-right')).toBe('Ctrl+Shift+D');
    expect(shortcutLabel('split-right', 'darwin')).toBe('⌘Shift+D');
    expect(shortcutLabel('focus-left')).toBe('');
  });
});

describe('isDeleteWord (issue 35, item 10)', () => {
  it('is Ctrl+W alone, which no window command takes', () => {
    expect(isDeleteWord(k('w', 'KeyW', { ctrlKey: true }))).toBe(true);
    expect(isDeleteWord(k('w', 'KeyW', { ctrlKey: true }), 'linux')).toBe(true);
    expect(commandForKey(k('w', 'KeyW', { ctrlKey: true }))).toBeUndefined();
  });
  it('is not Ctrl+Shift+W (close pane), Alt or Meta with it, plain w, or anything on macOS', () => {
    expect(isDeleteWord(k('W', 'KeyW', { ctrlKey: true, shiftKey: true }))).toBe(false);
    expect(isDeleteWord(k('w', 'KeyW', { ctrlKey: true, altKey: true }))).toBe(false);
    expect(isDeleteWord(k('w', 'KeyW', { ctrlKey: true, metaKey: true }))).toBe(false);
    expect(isDeleteWord(k('w', 'KeyW'))).toBe(false);
    expect(isDeleteWord(k('w', 'KeyW', { ctrlKey: true }), 'darwin')).toBe(false);
  });
});

/** xterm colour themes matching the window's light and dark looks (styles.css). */
import type { ITheme } from '@xterm/xterm';

/** The window's two looks. */
export type ThemeName = 'light' | 'dark';

export const TERMINAL_THEMES: Record<ThemeName, ITheme> = {
  dark: {
    background: '#16181c',
    foreground: '#d5d8de',
    cursor: '#e8eaed',
    cursorAccent: '#16181c',
    selectionBackground: '#3b4d6b',
    selectionInactiveBackground: '#2d3748',
    black: '#1f2228',
    red: '#f0727a',
    green: '#8fcf7f',
    yellow: '#e6c07b',
    blue: '#6fa8f5',
    magenta: '#c99af2',
    cyan: '#5fc5d0',
    white: '#d5d8de',
    brightBlack: '#6b7280',
    brightRed: '#ff8f96',
    brightGreen: '#a8e096',
    brightYellow: '#f2d496',
    brightBlue: '#8fbcff',
    brightMagenta: '#dab3ff',
    brightCyan: '#7fd9e2',
    brightWhite: '#f4f5f7',
    scrollbarSliderBackground: 'rgba(160, 170, 185, 0.22)',
    scrollbarSliderHoverBackground: 'rgba(160, 170, 185, 0.35)',
    scrollbarSliderActiveBackground: 'rgba(160, 170, 185, 0.45)',
  },
  light: {
    background: '#fcfcfb',
    foreground: '#1f2328',
    cursor: '#1f2328',
    cursorAccent: '#fcfcfb',
    selectionBackground: '#b9d4fb',
    selectionInactiveBackground: '#dbe5f2',
    black: '#1f2328',
    red: '#c62f37',
    green: '#2b7a2f',
    yellow: '#8a6100',
    blue: '#1f5fbf',
    magenta: '#8b3fb8',
    cyan: '#127b87',
    white: '#6e7781',
    brightBlack: '#57606a',
    brightRed: '#e0464e',
    brightGreen: '#3a9141',
    brightYellow: '#a37300',
    brightBlue: '#2f74d8',
    brightMagenta: '#a052cc',
    brightCyan: '#1a8f9c',
    brightWhite: '#8c959f',
    scrollbarSliderBackground: 'rgba(80, 90, 105, 0.2)',
    scrollbarSliderHoverBackground: 'rgba(80, 90, 105, 0.32)',
    scrollbarSliderActiveBackground: 'rgba(80, 90, 105, 0.42)',
  },
};

/** The terminals' line height (xterm's `lineHeight`: a row is the font's box times this, rounded down in device pixels); the first paint's size reckoning (renderer/early.ts) uses it too. */
export const TERMINAL_LINE_HEIGHT = 1.15;

export const FONT_STACK = 'ui-monospace, "SF Mono", "Cascadia Mono", "JetBrains Mono", Menlo, Consolas, "DejaVu Sans Mono", "Liberation Mono", monospace';

/** The font family to give xterm: the setting first (when set), then a stack of good monospace fonts. */
export function terminalFont(setting: string): string {
  const s = setting.trim();
  return s ? `${s}, ${FONT_STACK}` : FONT_STACK;
}

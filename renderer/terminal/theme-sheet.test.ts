import { describe, expect, it } from 'vitest';
import { sharedSheetText, themeSheetKey } from './theme-sheet.ts';

const c = (css: string) => ({ css });
const colors = (fg: string, ansi0 = '#000000') => ({
  foreground: c(fg),
  background: c('#ffffff'),
  cursor: c('#111111'),
  cursorAccent: c('#eeeeee'),
  selectionBackgroundOpaque: c('#aaaaaa'),
  selectionInactiveBackgroundOpaque: c('#bbbbbb'),
  ansi: [c(ansi0), c('#cd0000')],
});
const opts = { fontFamily: 'monospace', fontSize: 13, fontWeight: 'normal', fontWeightBold: 'bold', cursorWidth: 1 };

describe('one theme sheet for the DOM-rendered terminals of a theme', () => {
  it('is the same sheet for the same colours and font, another for anything xterm writes into it', () => {
    const key = themeSheetKey(colors('#222222'), opts);
    expect(themeSheetKey(colors('#222222'), { ...opts })).toBe(key);
    const others = [
      themeSheetKey(colors('#333333'), opts),
      themeSheetKey(colors('#222222', '#010101'), opts),
      themeSheetKey(colors('#222222'), { ...opts, fontFamily: 'serif' }),
      themeSheetKey(colors('#222222'), { ...opts, fontSize: 14 }),
      themeSheetKey(colors('#222222'), { ...opts, fontWeight: 300 }),
      themeSheetKey(colors('#222222'), { ...opts, fontWeightBold: 600 }),
      themeSheetKey(colors('#222222'), { ...opts, cursorWidth: 2 }),
    ];
    expect(new Set([key, ...others]).size).toBe(others.length + 1);
  });

  it('takes the terminal\'s own selector out of the sheet, not a longer number that starts the same', () => {
    const text = '.xterm-dom-renderer-owner-1 .xterm-rows { color: red; }.xterm-dom-renderer-owner-1.focus .xterm-selection div {}.xterm-dom-renderer-owner-12 .xterm-fg-1 {}@keyframes blink_bar_1 {}';
    expect(sharedSheetText(text, '.xterm-dom-renderer-owner-1', 'td-xterm-theme-1')).toBe(
      '.td-xterm-theme-1 .xterm-rows { color: red; }.td-xterm-theme-1.focus .xterm-selection div {}.xterm-dom-renderer-owner-12 .xterm-fg-1 {}@keyframes blink_bar_1 {}',
    );
  });
});

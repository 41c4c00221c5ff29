/**
 * An agent's terminal on the phone: the window's own renderer (xterm, its colour themes),
 * read-only, drawing each snapshot the door sends (the screen and some history, as escape
 * sequences: colours kept). Its font is made small enough for the pane's columns to fit a
 * phone's width (again when the pane's columns change), or with "Larger text" it is
 * LARGE_FONT_PX and the rest scrolls sideways. While the person has scrolled up to read, newer
 * snapshots wait, and the latest is drawn once they are back at the bottom. Tapping it does
 * not bring up the keyboard: typing goes through the switch and the key bar below it.
 */
import { Terminal } from '@xterm/xterm';
import { useEffect, useRef } from 'react';
import { TERMINAL_LINE_HEIGHT, TERMINAL_THEMES, terminalFont, type ThemeName } from '../../common/themes.ts';
import { resizeKeepingAlt } from '../../common/xterm-resize.ts';
import { syncScrollbarOncePerTask } from '../terminal/scroll-sync.ts';

export interface Shot {
  data: string;
  cols: number;
  rows: number;
}

const themeNow = (): ThemeName => (document.documentElement.dataset.theme === 'light' ? 'light' : 'dark');

/** A monospace cell is about 0.6 of the font size wide: the size that fits `cols` into `width`, 7 to 13 px. */
export function fittingFontSize(width: number, cols: number): number {
  const size = Math.floor((width / Math.max(cols, 1) / 0.6) * 2) / 2;
  return Math.min(13, Math.max(7, size));
}

/** "Larger text": a size read at arm's length; the columns past the phone's width scroll sideways. */
export const LARGE_FONT_PX = 12;

export function Screen({ shot, label, large = false }: { shot: Shot; label: string; large?: boolean }) {
  const host = useRef<HTMLDivElement>(null);
  const largeNow = useRef(large);
  largeNow.current = large;
  const fontSize = (el: HTMLElement, cols: number): number => (largeNow.current ? LARGE_FONT_PX : fittingFontSize(el.clientWidth - 4, cols));
  /** A snapshot drawn, the font fitted again first when the pane's columns changed. */
  const show = (t: Terminal, next: Shot): void => {
    if (next.cols !== t.cols && host.current) t.options.fontSize = fontSize(host.current, next.cols);
    draw(t, next);
  };
  const term = useRef<Terminal | undefined>(undefined);
  const waiting = useRef<Shot | undefined>(undefined);

  useEffect(() => {
    const el = host.current!;
    const t = new Terminal({
      cols: shot.cols,
      rows: shot.rows,
      disableStdin: true,
      cursorBlink: false,
      cursorStyle: 'bar',
      cursorInactiveStyle: 'outline',
      scrollback: 1000,
      fontFamily: terminalFont(''),
      fontSize: fontSize(el, shot.cols),
      lineHeight: TERMINAL_LINE_HEIGHT,
      theme: TERMINAL_THEMES[themeNow()],
      minimumContrastRatio: 4.5,
      drawBoldTextInBrightColors: false,
    });
    t.open(el);
    syncScrollbarOncePerTask(t);
    // No keyboard on a tap: nothing typed here reaches the pane anyway.
    t.textarea?.setAttribute('inputmode', 'none');
    t.textarea?.setAttribute('aria-label', label);
    term.current = t;
    const scrolled = t.onScroll(() => {
      const b = t.buffer.active;
      if (waiting.current && b.viewportY >= b.baseY) {
        const next = waiting.current;
        waiting.current = undefined;
        show(t, next);
      }
    });
    // The page's theme follows the phone's (prefers-color-scheme): so do the terminal's colours.
    const looks = new MutationObserver(() => {
      t.options.theme = TERMINAL_THEMES[themeNow()];
    });
    looks.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    return () => {
      looks.disconnect();
      scrolled.dispose();
      t.dispose();
      term.current = undefined;
    };
    // Made once per pane (the parent keys it by pane); later snapshots are drawn below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useEffect(() => {
    const t = term.current;
    if (t && host.current) t.options.fontSize = fontSize(host.current, t.cols);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [large]);

  useEffect(() => {
    const t = term.current;
    if (!t) return;
    const b = t.buffer.active;
    // Reading history: the newest waits until they are back at the bottom.
    if (b.viewportY < b.baseY) {
      waiting.current = shot;
      return;
    }
    show(t, shot);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [shot]);

  return <div className="phone-xterm" ref={host} role="region" aria-label={label} data-cols={shot.cols} data-rows={shot.rows} data-large={large || undefined} />;
}

function draw(t: Terminal, shot: Shot): void {
  if (t.cols !== shot.cols || t.rows !== shot.rows) resizeKeepingAlt(t, Math.max(2, shot.cols), Math.max(1, shot.rows));
  t.reset();
  t.write(shot.data);
}

/**
 * A window's first paint: the window as it will look once built (its title bar, its split
 * layout, each pane's header and the rows on its screen, with their colours and the cursor),
 * as HTML the browser's door puts into index.html (main/serve/server.ts), so a browser paints
 * the panes before any script has run. It uses the app's own classes (styles.css), so it sits
 * where React will put the same things; the renderer takes it away once its terminals have
 * drawn (retire.ts), each pane's part as that pane's terminal draws. Plain divs, hidden from
 * assistive technology: it is a picture of the window, not a second one (no landmarks,
 * nothing to focus, clicks on it go nowhere). Pure: no DOM, so the core renders it.
 *
 * Everything from a pane (screen text, titles, folders) is escaped for HTML; colours are only
 * ever numbers or #rrggbb made here. docs/spec/performance.md, "A window attaching, in order".
 */
import type { Layout, PaneInfo, Settings } from '../preload/contract.ts';
import { escapeHtml } from './escape.ts';
import { headerTitle, lastCommandParts, shortPath } from './header-text.ts';
import { leafIds, normalise } from './layout.ts';
import { FONT_STACK, TERMINAL_THEMES, terminalFont } from './themes.ts';
import type { ThemeName } from './themes.ts';

/** A cell's colour: the terminal's default (null), one of the 256 palette colours, or #rrggbb. */
export type CellColour = null | number | string;

/** Bits of CellRun.flags. */
export const CELL = { bold: 1, italic: 2, underline: 4, inverse: 8, dim: 16, invisible: 32, strike: 64, overline: 128 } as const;

/** Neighbouring cells that look alike. */
export interface CellRun {
  text: string;
  fg: CellColour;
  bg: CellColour;
  flags: number;
}

/** The rows a pane's screen shows (main/panes/screen-cells.ts). */
export interface ScreenCells {
  cols: number;
  rows: number;
  lines: CellRun[][];
  cursor: { x: number; y: number; visible: boolean };
  /** The program asked for application cursor keys (DECCKM: arrows send ESC O A, not ESC [ A). */
  appCursor?: boolean;
}

export interface FirstPaint {
  layout: Layout;
  focused: string | null;
  panes: Record<string, { info: PaneInfo; screen: ScreenCells }>;
  theme: ThemeName;
  settings: Pick<Settings, 'fontSize' | 'fontFamily'>;
}

/** The first paint's element id (retire.ts takes it away). */
export const FIRST_PAINT_ID = 'td-first-paint';

/** Markup larger than this is not sent: the page draws as it did without one. */
export const FIRST_PAINT_MAX_CHARS = 1024 * 1024;

/** Text for HTML, in an element or a quoted attribute, C0 and C1 controls dropped (a screen's cells hold none, a title may). */
export function htmlText(text: string): string {
  return escapeHtml(text.replace(/[\u0000-\u001f\u007f-\u009f]/g, ''));
}

const CUBE = [0, 95, 135, 175, 215, 255];
const hex = (r: number, g: number, b: number): string => `#${[r, g, b].map((v) => v.toString(16).padStart(2, '0')).join('')}`;

/** The theme's keys for palette colours 0-15, in their order. */
const ANSI_KEYS = ['black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white', 'brightBlack', 'brightRed', 'brightGreen', 'brightYellow', 'brightBlue', 'brightMagenta', 'brightCyan', 'brightWhite'] as const;

/** A palette colour as xterm draws it: 0-15 from the theme, 16-231 the colour cube, 232-255 the greys. */
export function paletteColour(index: number, theme: ThemeName): string {
  if (index < 16) return String(TERMINAL_THEMES[theme][ANSI_KEYS[index]!]);
  if (index < 232) {
    const i = index - 16;
    return hex(CUBE[Math.floor(i / 36)]!, CUBE[Math.floor(i / 6) % 6]!, CUBE[i % 6]!);
  }
  const grey = 8 + (Math.min(index, 255) - 232) * 10;
  return hex(grey, grey, grey);
}

function cssColour(c: CellColour, theme: ThemeName): string | undefined {
  if (c === null) return undefined;
  if (typeof c === 'number') return Number.isInteger(c) && c >= 0 && c < 256 ? paletteColour(c, theme) : undefined;
  return /^#[0-9a-f]{6}$/i.test(c) ? c : undefined;
}

function runStyle(run: CellRun, theme: ThemeName): string {
  const t = TERMINAL_THEMES[theme];
  let fg = cssColour(run.fg, theme);
  let bg = cssColour(run.bg, theme);
  if (run.flags & CELL.inverse) [fg, bg] = [bg ?? String(t.background), fg ?? String(t.foreground)];
  const css: string[] = [];
  if (fg) css.push(`color:${fg}`);
  if (bg) css.push(`background-color:${bg}`);
  if (run.flags & CELL.bold) css.push('font-weight:bold');
  if (run.flags & CELL.italic) css.push('font-style:italic');
  if (run.flags & CELL.dim) css.push('opacity:0.5');
  if (run.flags & CELL.invisible) css.push('visibility:hidden');
  const lines = [run.flags & CELL.underline ? 'underline' : '', run.flags & CELL.overline ? 'overline' : '', run.flags & CELL.strike ? 'line-through' : ''].filter(Boolean);
  if (lines.length) css.push(`text-decoration:${lines.join(' ')}`);
  return css.join(';');
}

/**
 * A pane's screen as the first paint draws it: its rows (`.first-paint-rows`), with colours and
 * the cursor (a bar when `focused`, else an outline). The first paint kept live redraws a
 * pane's part with it (`pane.rows`, renderer/early.ts).
 */
export function rowsMarkup(screen: ScreenCells, theme: ThemeName, settings: FirstPaint['settings'], focused: boolean): string {
  const t = TERMINAL_THEMES[theme];
  // The person's font setting, with nothing that could end the declaration (it goes in a style attribute).
  const font = htmlText(terminalFont((settings.fontFamily || '').replace(/[^\w ,.'"-]/g, '')) || FONT_STACK);
  const size = Number.isFinite(settings.fontSize) ? Math.max(4, Math.min(100, settings.fontSize)) : 13;
  let html = `<div class="first-paint-rows" style="font-size:${size}px;font-family:${font};color:${t.foreground}">`;
  screen.lines.forEach((runs, y) => {
    html += '<div>';
    for (const run of runs) {
      const style = runStyle(run, theme);
      html += style ? `<span style="${style}">${htmlText(run.text)}</span>` : htmlText(run.text);
    }
    if (screen.cursor.visible && screen.cursor.y === y) {
      const x = Math.max(0, Math.min(screen.cols - 1, Math.floor(screen.cursor.x)));
      html += `<span class="first-paint-cursor ${focused ? 'bar' : 'outline'}" style="left:${x}ch;--cursor:${t.cursor}"></span>`;
    }
    html += '</div>';
  });
  return html + '</div>';
}

function paneMarkup(fp: FirstPaint, paneId: string): string {
  const pane = fp.panes[paneId]!;
  const focused = fp.focused === paneId;
  const { title, cwd, showCwd } = headerTitle(pane.info);
  const exited = pane.info.status === 'exited';
  const dot = exited ? (pane.info.exitCode === 0 ? 'ok' : 'bad') : 'live';
  const lc = pane.info.lastCommand && !exited ? lastCommandParts(pane.info.lastCommand) : undefined;
  const f = focused ? 'true' : 'false';
  return `<div class="pane" data-focused="${f}" data-first-paint-pane="${htmlText(paneId)}"${pane.screen.appCursor ? ' data-app-cursor="true"' : ''}>`
    + `<div class="pane-header" data-focused="${f}"><span class="pane-dot ${dot}"></span><span class="pane-title">${htmlText(title)}</span>`
    + (showCwd ? `<span class="pane-cwd">${htmlText(shortPath(cwd))}</span>` : '')
    + (lc ? `<span class="pane-last-command ${pane.info.lastCommand!.exitCode === 0 ? 'ok' : 'bad'}">${htmlText(lc.text)}</span>` : '')
    + '<span class="pane-header-spacer"></span></div>'
    + `<div class="pane-body"><div class="pane-terminal"><div class="terminal-container">${rowsMarkup(pane.screen, fp.theme, fp.settings, focused)}</div></div>`
    + (pane.info.benchOpen ? '<div class="pane-bench"><div class="td-bench-loading"><div class="td-bench-loading-bar">Workbench</div><p>Loading…</p></div></div>' : '')
    + '</div></div>';
}

function layoutMarkup(fp: FirstPaint, node: Layout): string {
  if (node.type === 'pane') return paneMarkup(fp, node.paneId);
  const sizes = normalise(node.sizes.length === node.children.length ? node.sizes : node.children.map(() => 1));
  const row = node.direction === 'row';
  const divider = `<div class="divider divider-${row ? 'vertical' : 'horizontal'}"></div>`;
  const children = node.children.map((child, i) => `<div class="split-child" style="flex:${sizes[i]} 1 0px">${layoutMarkup(fp, child)}</div>`);
  return `<div class="split split-${row ? 'row' : 'column'}">${children.join(divider)}</div>`;
}

/**
 * The first paint's markup, or undefined when there is nothing it could draw as the window will:
 * a pane of the layout that has no screen here, or one that ended with the service (its window
 * shows it ended, with Resume), or markup over FIRST_PAINT_MAX_CHARS.
 */
export function firstPaintMarkup(fp: FirstPaint): string | undefined {
  const ids = leafIds(fp.layout);
  if (ids.length === 0 || ids.some((id) => !fp.panes[id] || fp.panes[id]!.info.ended)) return undefined;
  const count = ids.length === 1 ? '1 pane' : `${ids.length} panes`;
  const html = `<div id="${FIRST_PAINT_ID}" data-theme="${fp.theme}" aria-hidden="true"><div class="app">`
    + `<div class="titlebar"><img class="app-icon" src="./icon.svg" alt="" width="16" height="16"><span class="app-name">Terminal Delight</span><span class="titlebar-dim">${count}</span><span class="titlebar-spacer"></span></div>`
    + `<div class="workspace">${layoutMarkup(fp, fp.layout)}</div></div></div>`;
  return html.length > FIRST_PAINT_MAX_CHARS ? undefined : html;
}

/**
 * index.html with the window's theme on its root element (the page paints in it from the
 * first frame) and the first paint after the React root, when there is one.
 */
export function withFirstPaint(indexHtml: string, theme: ThemeName, markup: string | undefined): string {
  const themed = indexHtml.replace(/<html\b([^>]*)>/i, (tag, attrs: string) => (/\bdata-theme=/.test(attrs) ? tag : `<html${attrs} data-theme="${theme}">`));
  const root = '<div id="root"></div>';
  const at = themed.indexOf(root);
  return !markup || at < 0 ? themed : themed.slice(0, at + root.length) + markup + themed.slice(at + root.length);
}

/** The type the door gives the page's scripts that wait for the early socket's open (renderer/early.ts `startScripts`): inert until then. */
export const LATER_SCRIPT_TYPE = 'text/x-td-later';

/**
 * index.html with its scripts (the vendor script, `defer`, and the main module) inert, each
 * with a preload in its place so it is fetched as early as before: the page's early script
 * (renderer/early.ts `startScripts`) starts them, in order, once the page is parsed and its
 * socket has opened (or soon after, LATER_SCRIPTS_WAIT_MS), so the socket's `open` (and the
 * hello it sends, and the snapshots asked after it) does not wait behind their evaluation.
 * Other scripts (the inline early one) are left as they are.
 */
export function withScriptsLater(indexHtml: string): string {
  return indexHtml.replace(/<script\b([^>]*)\bsrc="([^"]+)"([^>]*)><\/script>/g, (tag, before: string, src: string, after: string) => {
    const attrs = `${before} ${after}`;
    const module = /\btype="module"/.test(attrs);
    const crossorigin = /\bcrossorigin\b/.test(attrs);
    if (!module && !/\bdefer\b/.test(attrs)) return tag;
    const preload = module ? `<link rel="modulepreload"${crossorigin ? ' crossorigin' : ''} href="${src}">` : `<link rel="preload" as="script"${crossorigin ? ' crossorigin' : ''} href="${src}">`;
    return `${preload}<script type="${LATER_SCRIPT_TYPE}" data-src="${src}"${module ? ' data-module="true"' : ''}${crossorigin ? ' data-crossorigin="true"' : ''}></script>`;
  });
}

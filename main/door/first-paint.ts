/**
 * The window's first paint (common/first-paint.ts): the layout, its panes' headers
 * and screens, in the theme the window will show, put into index.html. The core draws it
 * (firstPaintFor): in the door's own process (the service's door, tests), or in the service
 * a relay or Electron's shell asks over the `first-paint` frame (main/clients/wire.ts).
 */
import type { IncomingMessage } from 'node:http';
import type { App } from '../app.ts';
import { FIRST_PAINT_MAX_CHARS, firstPaintMarkup, withFirstPaint, type FirstPaint } from '../../common/first-paint.ts';
import { paneIds } from '../panes/layout.ts';
import type { ThemeName } from '../../common/themes.ts';
import type { FirstPaintAnswer, FirstPaintAsk } from '../clients/wire.ts';

export type { FirstPaintAnswer, FirstPaintAsk };

/** The client hint a browser sends with the person's light or dark preference, once the door asked for it. */
export const THEME_HINT = 'Sec-CH-Prefers-Color-Scheme';

/**
 * The headers that ask a browser for THEME_HINT: Accept-CH for every later request on this
 * origin, Critical-CH so that a first request without it is made again at once with it.
 */
export const THEME_HINT_HEADERS: Record<string, string> = { 'Accept-CH': THEME_HINT, 'Critical-CH': THEME_HINT };

/**
 * The theme the window will show, as its renderer decides it (store.ts resolvedTheme): the
 * window's own choice (`?theme=`) first, then the theme setting, then, for "system", what the
 * person prefers (a browser's hint, the desktop's setting); undefined when nothing says (a
 * browser without client hints: the renderer decides once it runs).
 */
export function resolveTheme(setting: 'system' | 'light' | 'dark', own: unknown, prefers: unknown): ThemeName | undefined {
  if (own === 'light' || own === 'dark') return own;
  if (setting !== 'system') return setting;
  return prefers === 'light' || prefers === 'dark' ? prefers : undefined;
}

/** The theme the window asking with this request will show (resolveTheme, from its query and its browser's hint). */
export function windowTheme(setting: 'system' | 'light' | 'dark', url: URL, req: Pick<IncomingMessage, 'headers'>): ThemeName | undefined {
  return resolveTheme(setting, url.searchParams.get('theme'), browserPrefers(req));
}

/** What the browser said the person prefers (THEME_HINT), when it did. */
function browserPrefers(req: Pick<IncomingMessage, 'headers'>): ThemeName | undefined {
  const hint = req.headers[THEME_HINT.toLowerCase()];
  const value = typeof hint === 'string' ? hint.trim().replace(/^"|"$/g, '') : undefined;
  return value === 'light' || value === 'dark' ? value : undefined;
}

/** What the first paint draws, read from the core: undefined with no layout, or a pane of it gone. */
export function firstPaintOf(app: App, theme: ThemeName): FirstPaint | undefined {
  const layout = app.panes.layout;
  if (!layout) return undefined;
  const panes: FirstPaint['panes'] = {};
  // The layout's panes only: reading a screen parses what waits in it first, and a pane out of view (a Tick's) needs no picture.
  for (const id of paneIds(layout)) {
    const info = app.panes.get(id);
    const screen = info && app.panes.screenCells(id);
    if (info && screen) panes[id] = { info, screen };
  }
  const { fontSize, fontFamily } = app.settings.get();
  return { layout, focused: app.panes.focused, panes, theme, settings: { fontSize, fontFamily } };
}

/**
 * The theme and first paint for a window asking `ask`. A first paint that fails to draw is
 * left out (the page draws as it always did): it never costs the page.
 */
export function firstPaintFor(app: App, ask: FirstPaintAsk): FirstPaintAnswer {
  const theme = resolveTheme(app.settings.get().theme, ask.theme, ask.prefers);
  if (!theme) return { theme: null, markup: null };
  let markup: string | null = null;
  if (!ask.themeOnly) {
    try {
      const fp = firstPaintOf(app, theme);
      markup = fp ? firstPaintMarkup(fp) ?? null : null;
    } catch {
      markup = null;
    }
  }
  return { theme, markup };
}

/** What the window loading with this request asks: its query's theme and `first-paint=off`, its browser's hint, HEAD. */
export function askOf(url: URL, req: Pick<IncomingMessage, 'headers' | 'method'>): FirstPaintAsk {
  // `?first-paint=off`: the page as it was before there was one (to compare, or to rule it out).
  return { theme: url.searchParams.get('theme'), prefers: browserPrefers(req), themeOnly: url.searchParams.get('first-paint') === 'off' || req.method === 'HEAD' };
}

/** An ask as the service's `first-paint` frame carries it (main/clients/wire.ts): strings only. */
export function wireAsk(ask: FirstPaintAsk): { theme?: string; prefers?: string; themeOnly?: boolean } {
  return {
    ...(typeof ask.theme === 'string' ? { theme: ask.theme.slice(0, 16) } : {}),
    ...(typeof ask.prefers === 'string' ? { prefers: ask.prefers.slice(0, 16) } : {}),
    ...(ask.themeOnly ? { themeOnly: true } : {}),
  };
}

/**
 * How long index.html waits for a first paint from a core elsewhere: the service Electron's
 * shell reaches (a local socket: milliseconds), or one a relay reaches over SSH (a round trip
 * or two).
 */
export const FIRST_PAINT_WAIT_MS = 250;

/**
 * A first paint from a core elsewhere, or undefined when it is not back within `ms`: the
 * window's page never waits long for its picture (it draws as it always did).
 */
export function firstPaintWithin(answer: Promise<FirstPaintAnswer | undefined>, ms = FIRST_PAINT_WAIT_MS): Promise<FirstPaintAnswer | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    answer.then(
      (a) => {
        clearTimeout(timer);
        resolve(a);
      },
      () => {
        clearTimeout(timer);
        resolve(undefined);
      },
    );
  });
}

/**
 * index.html with an answer in it: the theme on its root element, the first paint after the
 * React root. An answer from elsewhere is held to what the door itself would send: a theme
 * that is one, markup no longer than FIRST_PAINT_MAX_CHARS.
 */
export function withAnswer(html: string, answer: FirstPaintAnswer | undefined): string {
  const theme = answer?.theme === 'light' || answer?.theme === 'dark' ? answer.theme : undefined;
  const markup = typeof answer?.markup === 'string' && answer.markup.length <= FIRST_PAINT_MAX_CHARS ? answer.markup : undefined;
  return theme ? withFirstPaint(html, theme, markup) : html;
}

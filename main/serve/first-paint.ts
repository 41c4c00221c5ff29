/**
 * The window's first paint as the door sends it (renderer/first-paint/markup.ts): the layout,
 * its panes' headers and screens, in the theme the window will show, put into index.html.
 * Only where the core runs in the door's own process (the service's door, tests); a relay
 * sends index.html as it is.
 */
import type { IncomingMessage } from 'node:http';
import type { App } from '../app.ts';
import { firstPaintMarkup, withFirstPaint, type FirstPaint } from '../../renderer/first-paint/markup.ts';
import { paneIds } from '../panes/layout.ts';
import type { ThemeName } from '../../renderer/store/store.ts';

/** The client hint a browser sends with the person's light or dark preference, once the door asked for it. */
export const THEME_HINT = 'Sec-CH-Prefers-Color-Scheme';

/**
 * The headers that ask a browser for THEME_HINT: Accept-CH for every later request on this
 * origin, Critical-CH so that a first request without it is made again at once with it.
 */
export const THEME_HINT_HEADERS: Record<string, string> = { 'Accept-CH': THEME_HINT, 'Critical-CH': THEME_HINT };

/**
 * The theme the window will show, as its renderer decides it (store.ts resolvedTheme): `?theme=`
 * first, then the theme setting, then, for "system", the browser's hint; undefined when
 * nothing says (a browser without client hints: the renderer decides once it runs).
 */
export function windowTheme(setting: 'system' | 'light' | 'dark', url: URL, req: Pick<IncomingMessage, 'headers'>): ThemeName | undefined {
  const param = url.searchParams.get('theme');
  if (param === 'light' || param === 'dark') return param;
  if (setting !== 'system') return setting;
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
 * index.html for this request: with the theme on its root element when it is known, and the
 * first paint after the React root when the core is here and can draw one. A first paint
 * that fails to draw is left out (the page draws as it always did): it never costs the page.
 */
export function indexFor(html: string, app: App | undefined, url: URL, req: Pick<IncomingMessage, 'headers' | 'method'>): string {
  if (!app) return html;
  const theme = windowTheme(app.settings.get().theme, url, req);
  if (!theme) return html;
  let markup: string | undefined;
  // `?first-paint=off`: the page as it was before there was one (to compare, or to rule it out).
  if (url.searchParams.get('first-paint') !== 'off' && req.method !== 'HEAD') {
    try {
      const fp = firstPaintOf(app, theme);
      markup = fp ? firstPaintMarkup(fp) : undefined;
    } catch {
      markup = undefined;
    }
  }
  return withFirstPaint(html, theme, markup);
}

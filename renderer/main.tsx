/**
 * The renderer's entry: picks the API (`window.td` in Electron, the WebSocket
 * client in a browser), feeds the store from `app.hello` and the core's events,
 * and renders the window.
 *
 * URL switches: `?theme=light|dark` forces a theme (screenshots);
 * `?renderer=dom|webgl` forces a terminal renderer (default: WebGL on a hardware
 * GPU, else the DOM); `?test=1` exposes a small read-only hook on `window.__td`
 * for the end-to-end tests.
 */
import '@xterm/xterm/css/xterm.css';
import './styles.css';
import { createRoot } from 'react-dom/client';
import type { TdApi } from '../preload/contract.ts';
import { App } from './App.tsx';
import { runCommand } from './commands.ts';
import { Ctx, type WindowContext } from './context.ts';
import { CommandDeduper } from './dedupe.ts';
import { leafIds } from './panes/layout.ts';
import { createWindowStore, resolvedTheme } from './store/store.ts';
import type { ThemeName } from '../common/themes.ts';
import { createWsClient, type WsClient } from './td-client.ts';
import { afterFirstPaintTyping, onFirstPaintFocus, takeEarly, takeTyped } from './early.ts';
import { TerminalRegistry } from './terminal/registry.ts';
import { headersShown } from './panes/reveal.ts';
import { preloadRenderer } from './terminal/session.ts';
import { setBenchApi } from './workbench/runtime.ts';
import { preloadBench } from './workbench/lazy.ts';
import { desktopNotify } from './agents/notify.ts';
import { doorTheme } from './first-paint/door-theme.ts';
import { retireFirstPaint } from './first-paint/retire.ts';
import { serviceUi } from './service/ui.ts';
import { followFarPanes } from './machines/far-panes.ts';

// The page's timeline on attach (read by bench/peer.bench.ts): marks cost nothing.
performance.mark('td:script');
const params = new URLSearchParams(location.search);
const themeParam = params.get('theme');
const themeOverride: ThemeName | null = themeParam === 'light' || themeParam === 'dark' ? themeParam : null;

const electronApi = (window as Window & { td?: TdApi }).td;
// The page's first script (early.ts) opened the socket and said hello while this one loaded.
const ws: WsClient | undefined = electronApi ? undefined : createWsClient({ early: takeEarly() });
const api: TdApi = electronApi ?? ws!;
// The bench (renderer/workbench/) reaches the core through the same API.
setBenchApi(api);

const media = window.matchMedia('(prefers-color-scheme: dark)');
const store = createWindowStore({
  themeOverride,
  systemTheme: media.matches ? 'dark' : 'light',
  connection: ws ? ws.state : 'open',
});
media.addEventListener('change', (e) => store.getState().systemThemeChanged(e.matches ? 'dark' : 'light'));
// Before the first paint, so a light window never flashes dark while it connects. The door's
// index.html may carry it already (main/door/first-paint.ts: from the setting or the browser's
// hint, which this window's settings, unknown until its hello, cannot contradict): that stays
// until the hello (App.tsx).
if (!doorTheme) document.documentElement.dataset.theme = resolvedTheme(store.getState());

const terminals = new TerminalRegistry(api);
// The other terminals open once the panes' headers held in the first render have come (panes/reveal.ts).
terminals.beforeRest = headersShown;

const ctx: WindowContext = {
  api,
  store,
  terminals,
  rendererMode: params.get('renderer') === 'dom' ? 'dom' : params.get('renderer') === 'webgl' ? 'webgl' : 'auto',
  terminal: (paneId) => terminals.get(paneId),
  dedupe: new CommandDeduper(),
  disconnect: () => ws?.close(),
  openLink(url) {
    if (!/^https?:\/\//i.test(url)) return;
    window.open(url, '_blank', 'noopener,noreferrer');
  },
};

api.on('pane.output', (p) => terminals.output(p.paneId, p.data));
api.on('pane.updated', (p) => store.getState().paneUpdated(p));
api.on('pane.removed', (p) => {
  store.getState().paneRemoved(p.paneId);
  terminals.removed(p.paneId);
});
api.on('layout.changed', (p) => store.getState().layoutChanged(p.layout, p.focused));
// This window fell behind a pane's output (while another window kept up, or in a long flood) and has caught up: redraw it.
api.on('pane.stale', (p) => void terminals.get(p.paneId)?.sync(p.history === 'all' ? 'flood-over' : 'stale'));
api.on('settings.changed', (s) => store.getState().settingsChanged(s));
api.on('notify', (n) => {
  // A person already looking at the pane needs no notice about it.
  if (n.paneId && n.paneId === store.getState().focused && document.hasFocus()) return;
  store.getState().notice(n.body ? `${n.title}: ${n.body}` : n.title, 'info');
  desktopNotify(ctx, n);
});
/** The notices the service's hello brought: about the running service, dismissed when it is stopped. */
const helloNotices = new Set<number>();
// The service is going: stopped on purpose, the window says so and offers to start it again
// (service/StoppedBar.tsx); after a quit, everything has ended; a restart needs no word.
api.on('service.stopping', (p) => {
  if (p.how === 'stop') {
    serviceUi.setState({ stopped: p.message });
    // What the service said at hello ("Closing this window keeps your panes running…") is no longer so.
    for (const id of helloNotices) store.getState().dismissNotice(id);
    helloNotices.clear();
  }
  else if (p.how === 'quit') {
    serviceUi.setState({ quit: true });
    ctx.disconnect?.();
  }
});
// Electron's windows have no socket of their own to reconnect: asked to start, they say hello again.
serviceUi.subscribe((s, prev) => {
  if (s.startedN !== prev.startedN && !ws) hello();
});
api.on('command', (c) => {
  // Electron: the main made this window's link to the service anew (the service restarted).
  if (c.name === 'resync') return hello();
  if (ctx.dedupe.accept(c.name, 'menu')) runCommand(ctx, c.name, c.paneId);
});

// Other machines' panes in the layout: their hello through the home service, again after each reconnect.
followFarPanes(ctx);

// Terminals live while their pane is in the layout; they redraw after a reconnect.
store.subscribe((s, prev) => {
  if (s.layout !== prev.layout && !s.dragging) terminals.keepOnly(leafIds(s.layout));
  if (s.epoch !== prev.epoch) for (const t of terminals.all()) void t.sync();
});

/**
 * The bench's chunk (its evaluation a long task) once every pane of the window has drawn, or 3 s
 * on: its idle callback would otherwise come in a gap of the window's build (built in pieces), and
 * a key typed then would wait for it.
 */
let benchPreloaded = false;
function preloadBenchOnceBuilt(): void {
  if (benchPreloaded) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const go = (): void => {
    if (benchPreloaded) return;
    benchPreloaded = true;
    off();
    clearTimeout(timer);
    preloadBench();
  };
  const check = (): void => {
    if (terminals.allDrawn(leafIds(store.getState().layout))) go();
  };
  const off = terminals.onDrawn(check);
  timer = setTimeout(go, 3000);
  check();
}

function hello(): void {
  api.invoke('app.hello', {}).then(
    (res) => {
      performance.mark('td:hello');
      // Every pane's snapshot, asked for now: the answers come while the window is built (not a
      // few at a time once each terminal is made, a round trip each). The focused pane's alone
      // first, the others once it is answered (asked together, the core made them side by side
      // and the focused pane's came up to a second later under load). In a browser the early socket
      // asked them already, as soon as the hello was answered (early.ts): these asks claim its answers.
      // Each at the size its terminal will fit to, where the first paint says it (early.ts,
      // attachSnapshotReq): the core resizes the pane and answers at that size.
      const first = res.focused ?? (res.layout ? leafIds(res.layout)[0] : undefined);
      const sizes = new Map(res.panes.map((p) => [p.id, { cols: p.cols, rows: p.rows }]));
      void (first ? terminals.prefetch(first, sizes.get(first)) : Promise.resolve()).then(() => {
        for (const id of leafIds(store.getState().layout)) void terminals.prefetch(id, sizes.get(id));
      });
      // The WebGL addon's chunk, where it will draw (the DOM renderer draws until it is there).
      preloadRenderer(ctx.rendererMode);
      if (serviceUi.getState().stopped) serviceUi.setState({ stopped: null });
      store.getState().hello(res);
      // A click on the first paint focused another pane than the hello says (the core tells no window of a focus): that one.
      onFirstPaintFocus((paneId) => {
        if (leafIds(store.getState().layout).includes(paneId)) store.getState().focusPane(paneId, true);
      });
      for (const text of res.notices ?? []) helloNotices.add(store.getState().notice(text, 'info'));
      preloadBenchOnceBuilt();
    },
    (err: Error) => {
      if (store.getState().ready) store.getState().notice(`Refreshing the window failed: ${err.message}`);
      else store.getState().failed(err.message);
    },
  );
}

ws?.onConnection((state, reconnect) => {
  store.getState().connectionChanged(state);
  if (state === 'open' && reconnect) hello();
});
hello();

if (params.get('test') === '1') {
  (window as Window & { __td?: unknown }).__td = {
    store,
    paneIds: () => leafIds(store.getState().layout),
    text: (paneId: string, lastLines?: number) => terminals.get(paneId)?.text(lastLines) ?? null,
    renderer: (paneId: string) => terminals.get(paneId)?.renderer ?? null,
    live: (paneId: string) => terminals.get(paneId)?.isLive ?? false,
    /** Whether the pane's terminal has drawn its first snapshot (its rows on screen, not the first paint's). */
    drawn: (paneId: string) => terminals.allDrawn([paneId]),
    stats: (paneId: string) => terminals.get(paneId)?.stats ?? null,
    size: (paneId: string) => {
      const t = terminals.get(paneId)?.term;
      return t ? { cols: t.cols, rows: t.rows } : null;
    },
    /** The buffer lines of the pane's prompts (shell integration marks). */
    prompts: (paneId: string) => terminals.get(paneId)?.prompts.lines() ?? null,
    /** The pane's xterm Terminal, read-only (the benchmarks time onWriteParsed / onRender). */
    term: (paneId: string) => terminals.get(paneId)?.term ?? null,
    /** The early socket td-client adopted (frames it had kept, requests it had sent), or null. */
    adopted: () => ws?.adopted ?? null,
  };
}

// The window the door drew into index.html lies over this one until its terminals have drawn.
retireFirstPaint(document, store, terminals, {
  take: takeTyped,
  send: (paneId, data) => void api.invoke('pane.input', { paneId, data }).catch((err: Error) => store.getState().notice(`Typing into the pane failed: ${err.message}`)),
});

// React's first render of the window is one long task (with the focused terminal): keys typed on
// the first paint meanwhile have their echo drawn there first (early.ts afterFirstPaintTyping).
const root = createRoot(document.getElementById('root')!);
afterFirstPaintTyping(() => root.render(
  <Ctx.Provider value={ctx}>
    <App />
  </Ctx.Provider>,
));

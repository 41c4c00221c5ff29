/**
 * One pane's terminal in the window: an xterm instance with its addons, kept
 * alive while the pane is in the layout (React may re-mount the pane's view when
 * the layout tree changes shape; the terminal's element just moves).
 *
 * Attach: fit, `pane.resize`, then `pane.snapshot`, then live `pane.output`.
 * Output that arrives before the snapshot answers is already in the snapshot
 * (one ordered socket), so it is dropped but still acknowledged. Every character
 * written is acknowledged once xterm has parsed it (term.write's callback).
 *
 * Out of view (the page hidden, or the terminal too small to read: view.ts), the core is told
 * (`pane.view`) and sends this window none of the pane's output; shown again, it redraws from
 * the pane's snapshot at once.
 */
import { FitAddon } from '@xterm/addon-fit';
import type { ISearchOptions, SearchAddon } from '@xterm/addon-search';
import { Unicode11Addon } from '@xterm/addon-unicode11';
import { WebLinksAddon } from '@xterm/addon-web-links';
import type { WebglAddon } from '@xterm/addon-webgl';
import { Terminal } from '@xterm/xterm';
import { FLOW, type Res, type Settings, type TdApi } from '../../preload/contract.ts';
import type { ThemeName } from '../../common/themes.ts';
import { Acker, acknowledge, writePieces } from './flow.ts';
import { PromptMarks } from './prompts.ts';
import { skipEmptySelectionRedraws } from './selection-redraw.ts';
import { syncScrollbarOncePerTask } from './scroll-sync.ts';
import { shareWidths } from './width-memo.ts';
import { shareThemeSheet } from './theme-sheet.ts';
import { readable } from './view.ts';
import { linesHolding } from './lines-holding.ts';
import type { Prefetched, SnapshotQueue } from './snapshots.ts';
import type { PoolMember, Standing, WebglPool } from './webgl-pool.ts';
import { TERMINAL_LINE_HEIGHT, TERMINAL_THEMES, terminalFont } from '../../common/themes.ts';
import { resizeKeepingAlt } from '../../common/xterm-resize.ts';
import { mendEraseAbove } from '../../common/xterm-erase.ts';

export interface SessionOptions {
  paneId: string;
  api: TdApi;
  settings: Settings;
  theme: ThemeName;
  /**
   * 'auto': WebGL where the GPU does it in hardware, else the DOM renderer (a
   * software rasteriser such as SwiftShader draws slower than the DOM does).
   * 'dom' / 'webgl' force one (`?renderer=dom|webgl`, so both are tested).
   */
  rendererMode: RendererMode;
  /** Open a clicked link. */
  openLink(url: string): void;
  /** The terminal got keyboard focus (a click or a tab). */
  onFocus(): void;
  /** Something went wrong that a person should know. */
  onError(message: string): void;
  /** Whether the window still knows the pane: a snapshot refused for one it does not is not said (its place says why). */
  known?(): boolean;
  /** Where snapshots wait their turn, and this pane's place in it (lower first: the focused pane). */
  snapshots?: SnapshotQueue;
  priority?: () => number;
  /** A snapshot asked for before this terminal was made (TerminalRegistry.prefetch), for its first draw. */
  prefetched?: () => Prefetched | undefined;
  /**
   * The pane's size in the core, when known: the terminal starts at it, so a window of the same
   * size draws its rows once (not at 80 x 24 first, then again at the fitted size and the snapshot's).
   */
  size?: { cols: number; rows: number };
  /** Its first snapshot is drawn (the rows on screen, once): the window's first paint can go (renderer/first-paint/retire.ts). */
  onDrawn?: () => void;
  /** The window's WebGL contexts (webgl-pool.ts): where WebGL is used, this terminal draws with it while the pool gives it one. */
  webglPool?: WebglPool;
}

/** How long a pane's size must stay put before the PTY is resized (SIGWINCH once, not per frame). */
const RESIZE_SETTLE_MS = 60;

export type RendererKind = 'webgl' | 'dom';
/**
 * What a redraw is for (TerminalSession.sync): 'all' the whole history (the view kept on its
 * line); 'stale' caught up in a flood that goes on (FLOW.skipRedrawScrollback lines);
 * 'flood-over' caught up after it ended (the whole history).
 */
export type SyncMode = 'all' | 'stale' | 'flood-over';
export type RendererMode = 'auto' | RendererKind;

interface Box { width: number; height: number }
/** Whether two boxes are the same size (a ResizeObserver's report against a measured box). */
const sameBox = (a: Box, b: Box): boolean => Math.abs(a.width - b.width) < 0.01 && Math.abs(a.height - b.height) < 0.01;

let hardwareWebglCache: boolean | undefined;

/** GL renderer names of software rasterisers. */
export const SOFTWARE_GL = /swiftshader|llvmpipe|softpipe|software|basic render/i;

/**
 * Whether WebGL 2 runs on a GPU here: a context without a "major performance
 * caveat" whose renderer is not a known software rasteriser (Chromium with
 * --disable-gpu hands out SwiftShader without flagging the caveat).
 */
export function hardwareWebgl(): boolean {
  if (hardwareWebglCache !== undefined) return hardwareWebglCache;
  try {
    const canvas = document.createElement('canvas');
    const gl = canvas.getContext('webgl2', { failIfMajorPerformanceCaveat: true });
    if (!gl) {
      hardwareWebglCache = false;
      return false;
    }
    const info = gl.getExtension('WEBGL_debug_renderer_info');
    const name = String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER) ?? '');
    hardwareWebglCache = !SOFTWARE_GL.test(name);
    gl.getExtension('WEBGL_lose_context')?.loseContext();
  } catch {
    hardwareWebglCache = false;
  }
  return hardwareWebglCache;
}

/**
 * The WebGL addon's code (124 KB of source) is a chunk of its own, fetched only where it is
 * used: started as soon as the window knows it will be (preloadRenderer), awaited by each
 * terminal, which draws with the DOM renderer until it is there.
 */
let webglModule: Promise<typeof import('@xterm/addon-webgl')> | undefined;

/** Whether this mode draws with WebGL here. */
function usesWebgl(mode: RendererMode): boolean {
  return mode === 'webgl' || (mode === 'auto' && hardwareWebgl());
}

/** Start fetching the WebGL addon where terminals will use it (a no-op elsewhere). */
export function preloadRenderer(mode: RendererMode): void {
  if (!webglModule && usesWebgl(mode)) webglModule = import('@xterm/addon-webgl');
}

/** Find highlights per theme (addon-search wants #RRGGBB). */
export const SEARCH_DECORATIONS: Record<ThemeName, NonNullable<ISearchOptions['decorations']>> = {
  dark: {
    matchBackground: '#5c4d1a',
    matchOverviewRuler: '#d7b545',
    activeMatchBackground: '#a87512',
    activeMatchColorOverviewRuler: '#f2c14e',
  },
  light: {
    matchBackground: '#fbe7a1',
    matchOverviewRuler: '#c99a1c',
    activeMatchBackground: '#f5b93d',
    activeMatchColorOverviewRuler: '#b07d00',
  },
};

export class TerminalSession {
  readonly paneId: string;
  readonly term: Terminal;
  /** The element xterm draws into; it moves between pane views. */
  readonly host: HTMLDivElement;
  /** The shell's prompts (OSC 133): gutter marks and jumps between them. */
  readonly prompts: PromptMarks;
  renderer: RendererKind = 'dom';
  /**
   * Counters for tests and diagnosis: output dropped (already in a snapshot), written, last
   * snapshot's size (characters, and the pane's columns and rows it was taken at), output kept
   * after a prefetched snapshot's answer and written after it, snapshots asked for, redraws after falling behind a flood; `view`: in view,
   * or out of it ('hiding' until the core has answered `pane.view`, then 'hidden': no output
   * comes after that answer), and `shows`, the redraws on coming back into view.
   */
  readonly stats = { dropped: 0, written: 0, snapshotChars: -1, snapshotCols: 0, snapshotRows: 0, kept: 0, syncs: 0, refused: 0, redraws: 0, partial: false, view: 'shown' as 'shown' | 'hiding' | 'hidden', shows: 0 };
  private readonly fit = new FitAddon();
  private readonly opts: SessionOptions;
  private readonly acker: Acker;
  private webgl: { addon: WebglAddon; canvas: HTMLCanvasElement | undefined; onLost: () => void } | undefined;
  /** This terminal in the window's WebGL pool (once the addon's chunk is there). */
  private poolMember: PoolMember | undefined;
  /** When it last had keyboard focus, for the WebGL pool's ranking. */
  private focusedAt = 0;
  /** addon-search, loaded at the first find (its own chunk). */
  private search: Promise<SearchAddon> | undefined;
  private searchAddon: SearchAddon | undefined;
  private opened = false;
  /**
   * 'idle' until attached; 'syncing' while waiting for the snapshot; then 'live'. 'behind'
   * while the person reads scrollback after the core left this window behind a flood: the
   * view stays where it is (output is dropped, and acknowledged to stay in the flow) until
   * they come back to the bottom, which redraws.
   */
  private phase: 'idle' | 'syncing' | 'live' | 'behind' | 'hidden' = 'idle';
  /** Whether the core sends this window the pane's output (`pane.view`), and whether the terminal is big enough to read (view.ts). */
  private shown = true;
  private bigEnough = true;
  /** Set once the first snapshot is drawn: the terminal goes out of view only after that. */
  private firstDrawn = false;
  private readonly onVisibility = (): void => this.updateView();
  private generation = 0;
  private sentSize = { cols: 0, rows: 0 };
  private resizeObserver: ResizeObserver | undefined;
  private fitFrame = 0;
  private resizeTimer: ReturnType<typeof setTimeout> | undefined;
  private disposed = false;
  private settings: Settings;
  private theme: ThemeName;
  /** The last snapshot left older history out; it is fetched when the person scrolls to the top. */
  private partial = false;
  /** The redraw waiting while the person reads scrollback ('behind'). */
  private behindFor: 'stale' | 'flood-over' = 'stale';
  /** Whether anything was written to the terminal yet (a fresh one needs no reset before its first snapshot). */
  private written = false;

  constructor(opts: SessionOptions) {
    this.opts = opts;
    this.paneId = opts.paneId;
    this.settings = opts.settings;
    this.theme = opts.theme;
    this.acker = new Acker((chars) => acknowledge(opts.api, this.paneId, chars));
    this.host = document.createElement('div');
    this.host.className = 'terminal-host';
    document.addEventListener('visibilitychange', this.onVisibility);
    const size = opts.size && opts.size.cols >= 2 && opts.size.rows >= 1 ? { cols: opts.size.cols, rows: opts.size.rows } : {};
    this.term = new Terminal({
      ...size,
      allowProposedApi: true,
      scrollback: opts.settings.scrollback || 10_000,
      fontSize: opts.settings.fontSize,
      fontFamily: terminalFont(opts.settings.fontFamily),
      theme: TERMINAL_THEMES[opts.theme],
      // A steady cursor (as VS Code's terminal by default). The DOM renderer blinks with an
      // endless CSS animation, which keeps the page asking for frames; then every keydown
      // "requested a frame", and Chromium's DeferRendererTasksAfterInput holds the echo's
      // WebSocket message until that frame is out, so the echo paints a frame later
      // (bench/window.bench.ts, stock Chromium: p50 26 ms, p99 35 blinking; p50 9, p99 28
      // steady). An app can still ask for a blinking cursor (DECSCUSR).
      cursorBlink: false,
      cursorStyle: 'bar',
      cursorInactiveStyle: 'outline',
      lineHeight: TERMINAL_LINE_HEIGHT,
      macOptionIsMeta: true,
      rightClickSelectsWord: true,
      drawBoldTextInBrightColors: false,
      minimumContrastRatio: 4.5,
      rescaleOverlappingGlyphs: true,
    });
    this.term.loadAddon(this.fit);
    // (xterm's erase above from the last column unwrapped a row of the history: common/xterm-erase.ts.)
    mendEraseAbove(this.term);
    this.prompts = new PromptMarks(this.term);
    this.term.loadAddon(new Unicode11Addon());
    this.term.unicode.activeVersion = '11';
    this.term.loadAddon(new WebLinksAddon((event, uri) => {
      event.preventDefault();
      opts.openLink(uri);
    }));
    this.term.onData((data) => {
      if (this.disposed) return;
      opts.api.invoke('pane.input', { paneId: this.paneId, data }).catch((err: Error) => opts.onError(`Typing into the pane failed: ${err.message}`));
    });
    this.term.onSelectionChange(() => {
      if (!this.settings.copyOnSelect || !this.term.hasSelection()) return;
      void this.writeClipboard(this.term.getSelection());
    });
    this.host.addEventListener('focusin', () => {
      this.focusedAt = performance.now();
      if (this.poolMember) opts.webglPool?.changed();
      opts.onFocus();
    });
    // Scrolled to the top of a partial history: fetch the rest (the whole scrollback).
    this.term.onScroll((top) => {
      const buf = this.term.buffer.active;
      if (top === 0 && this.partial && this.phase === 'live' && buf.baseY > 0) void this.sync('all');
      else if (this.phase === 'behind' && buf.viewportY >= buf.baseY) void this.sync(this.behindFor);
    });
  }

  /**
   * Put the terminal into a pane view's container (opening it the first time, and then drawing
   * its snapshot: `start`; `start = false` leaves that to the caller, which opens many terminals,
   * measures them all with `measureFit`, then starts each, so the page is laid out once for all).
   */
  attach(container: HTMLElement, start = true): void {
    if (this.disposed) return;
    if (this.host.parentElement !== container) container.appendChild(this.host);
    if (!this.opened) {
      this.opened = true;
      this.term.open(this.host);
      shareWidths(this.term);
      shareThemeSheet(this.term);
      skipEmptySelectionRedraws(this.term);
      syncScrollbarOncePerTask(this.term);
      this.loadRenderer();
      this.resizeObserver = new ResizeObserver((entries) => {
        // Its first report (as it is observed) and any other of the box the terminal was last
        // fitted to need no fit: measuring again would lay out the whole page once a terminal.
        const box = entries[entries.length - 1]?.contentRect;
        if (this.phase === 'idle' && !this.fitted) {
          // Opened, not started yet (a window's other terminals are all opened, then measured,
          // then started, in turns while someone types: TerminalRegistry.openRest): its start
          // fits it. A box other than the one measured for it (measureFit) is measured again then.
          if (box && this.measuredBox && !sameBox(box, this.measuredBox)) this.measured = this.measuredBox = undefined;
        } else if (!box || !this.fittedBox || !sameBox(box, this.fittedBox)) this.scheduleFit();
        if (this.poolMember) this.opts.webglPool?.changed();
      });
      this.resizeObserver.observe(this.host);
      // A font that finished loading changes the cells' size, not the box: fitted again.
      document.fonts?.addEventListener?.('loadingdone', this.fontsLoaded);
      if (start) this.start();
    } else {
      this.scheduleFit();
      // Moving a canvas can leave it blank until the next paint.
      this.term.refresh(0, this.term.rows - 1);
    }
  }

  /** Draw the pane: its snapshot, then live output (once, after `attach(container, false)`). */
  start(): void {
    if (this.opened && this.phase === 'idle') void this.sync();
  }

  /**
   * The size the terminal will fit, read now (a layout of the page), for the next fit to use
   * instead of reading it again after other terminals have changed the page meanwhile.
   */
  measureFit(): void {
    if (!this.opened || this.disposed) return;
    this.measured = this.fit.proposeDimensions() ?? undefined;
    // The page is laid out now: its box is read at no cost.
    this.measuredBox = this.measured ? this.box() : undefined;
  }

  private measured: { cols: number; rows: number } | undefined;
  private readonly fontsLoaded = (): void => this.scheduleFit();
  private measuredBox: Box | undefined;
  /** The host's box and the size the terminal was last fitted to (fitNow). */
  private fittedBox: Box | undefined;
  private fitted: { cols: number; rows: number } | undefined;
  /** Whether the fitted size may be wrong now (its box changed, or the font): the next fit measures. */
  private fitStale = true;

  private box(): Box {
    const r = this.host.getBoundingClientRect();
    return { width: r.width, height: r.height };
  }

  /** The pane view went away (it may come back in another place). */
  detach(container: HTMLElement): void {
    if (this.host.parentElement === container) container.removeChild(this.host);
  }

  /**
   * Redraw from the core's snapshot: on first attach, after a reconnect, when this window
   * caught up after falling behind ('pane.stale': 'stale' while the flood goes on,
   * 'flood-over' with the whole history once it has ended), and with `history: 'all'` when
   * the person scrolls to the top of a partial history (the view stays on the same line).
   */
  sync(history?: SyncMode): Promise<void> {
    // Out of view: nothing to draw (said again, for a connection made anew: the new one sends it all).
    if (this.phase === 'hidden') {
      this.tellView(false);
      return Promise.resolve();
    }
    // Left behind a flood while the person reads scrollback: a redraw now would pull the view
    // to the bottom under them. It waits until they are back there (onScroll).
    const buf = this.term.buffer.active;
    if ((history === 'stale' || history === 'flood-over') && (this.phase === 'live' || this.phase === 'behind') && buf.viewportY < buf.baseY) {
      this.phase = 'behind';
      this.behindFor = history;
      return Promise.resolve();
    }
    const queue = this.opts.snapshots;
    if (!queue || history === 'all') return this.syncNow(history);
    return queue.run(this.opts.priority ?? (() => 1), () => this.syncNow(history));
  }

  /**
   * `history`: 'all' for the whole scrollback; 'stale' after falling behind a flood, with
   * FLOW.skipRedrawScrollback lines (the flood may still run: a redraw every
   * FLOW.skipRedrawMs costs the core a snapshot each); else the core's default.
   */
  private async syncNow(mode?: SyncMode): Promise<void> {
    const history = mode === 'all' || mode === 'flood-over' ? 'all' : undefined;
    if (this.disposed || !this.opened) return;
    const gen = ++this.generation;
    // Lines below the top of the view, kept when more history arrives above them (read again
    // as the snapshot is drawn: the person may scroll while it is on its way).
    let fromBottom = mode === 'all' ? this.term.buffer.active.baseY - this.term.buffer.active.viewportY : 0;
    this.phase = 'syncing';
    if (mode === 'stale' || mode === 'flood-over') this.stats.redraws++;
    this.fitNow(true);
    try {
      let snap: Res<'pane.snapshot'>;
      /** Output that came after the prefetched snapshot's answer, before this terminal (TerminalRegistry.output): written after it. */
      let after: string[] = [];
      for (let attempt = 1; ; attempt++) {
        // The first draw may use the snapshot asked for before this terminal was made: output that
        // came since (counted by the registry, then here from this terminal's start) may not be in it.
        const pre = attempt === 1 && !history ? this.opts.prefetched?.() : undefined;
        const droppedBefore = pre ? -pre.dropped : this.stats.dropped;
        this.stats.syncs++;
        performance.mark('td:snapshot-asked');
        const early = pre ? await pre.answer : undefined;
        snap = early ?? await this.opts.api.invoke('pane.snapshot', history ? { paneId: this.paneId, scrollback: 'all' } : mode === 'stale' ? { paneId: this.paneId, scrollback: FLOW.skipRedrawScrollback } : { paneId: this.paneId });
        if (gen !== this.generation || this.disposed) return;
        // Output dropped while the snapshot was on its way should be in it, but the core
        // may emit output it held back during the snapshot just before its answer leaves
        // (seen with a new pane's first prompt). One more snapshot then has it for sure.
        // (A redraw after falling behind a flood, 'stale', is sent nothing between pane.stale
        // and its snapshot, FlowMeter.redrawn: it asks again only in that race.)
        if (attempt === 1 && this.stats.dropped > droppedBefore) continue;
        // Kept output follows the prefetched snapshot only: a snapshot asked here already holds it.
        after = early ? (pre?.after ?? []) : [];
        break;
      }
      performance.mark('td:snapshot');
      this.stats.snapshotChars = snap.data.length;
      this.stats.snapshotCols = snap.cols;
      this.stats.snapshotRows = snap.rows;
      const redraw = () => {
        if (snap.cols > 0 && snap.rows > 0 && (snap.cols !== this.term.cols || snap.rows !== this.term.rows)) {
          resizeKeepingAlt(this.term, snap.cols, snap.rows);
        }
      };
      // Output xterm still holds from before is parsed first, then the terminal is reset (in
      // its queue, not now: else that output would land on top of the snapshot; a window left
      // behind in a flood is taken back with a little unparsed). Output from now on is queued
      // after the snapshot.
      const partial = snap.complete === false;
      const setPartial = (value: boolean) => {
        this.partial = value;
        this.stats.partial = value;
      };
      if (this.written) {
        this.term.write('', () => {
          if (mode === 'all') fromBottom = this.term.buffer.active.baseY - this.term.buffer.active.viewportY;
          // The reset scrolls the view to the top: not a person asking for older history.
          setPartial(false);
          this.term.reset();
          redraw();
          setPartial(partial);
        });
      } else {
        redraw();
        setPartial(partial);
      }
      this.written = true;
      this.phase = 'live';
      const prompts = snap.prompts ?? [];
      // One write, not pieces (writePieces): written in pieces, a flood's history fetched by
      // scrolling to the top came back short (e2e/window.e2e.ts, 4,733 of its last 10,000 lines).
      this.term.write(snap.data, () => {
        // The snapshot's text holds no marks: put its prompts back before any reflow.
        if (gen === this.generation) this.prompts.restore(prompts);
        performance.mark('td:snapshot-parsed');
        this.fitBack();
        this.drawnOnce();
        this.firstDrawn = true;
        this.updateView();
        if (mode === 'all') this.term.scrollToLine(Math.max(0, this.term.buffer.active.baseY - fromBottom));
      });
      // The output kept after a prefetched answer follows it, before any live output (acknowledged already, by the registry).
      const tail = after.join('');
      if (tail) {
        this.stats.written += tail.length;
        this.stats.kept += tail.length;
        this.term.write(tail);
      }
    } catch (err) {
      if (gen !== this.generation || this.disposed) return;
      this.phase = 'live';
      this.stats.refused++;
      if (this.opts.known?.() === false) return;
      this.opts.onError(`Drawing the pane failed: ${(err as Error).message}`);
    }
  }

  private drawn = false;

  /**
   * In view or out of it, as the page's visibility and the terminal's size say (view.ts): out of
   * it, the core is told and sends nothing more (a snapshot on its way is not drawn); back in
   * view, the core is told and the terminal redraws from the pane's snapshot at once.
   */
  private updateView(): void {
    if (this.disposed || !this.firstDrawn) return;
    const shown = this.bigEnough && document.visibilityState !== 'hidden';
    if (shown === this.shown) return;
    this.shown = shown;
    this.tellView(shown);
    if (!shown) {
      this.generation++;
      this.phase = 'hidden';
      return;
    }
    this.stats.shows++;
    this.phase = 'syncing';
    void this.sync();
  }

  private tellView(shown: boolean): void {
    this.stats.view = shown ? 'shown' : 'hiding';
    this.opts.api.invoke('pane.view', { paneId: this.paneId, shown }).then(() => {
      if (!shown && !this.shown) this.stats.view = 'hidden';
    }, () => { /* the pane went: nothing to tell */ });
  }

  /** Once: after the rows the snapshot made are on screen (xterm draws them in its next render), say so. */
  private drawnOnce(): void {
    if (this.drawn || !this.opts.onDrawn) return;
    this.drawn = true;
    let said = false;
    const say = (): void => {
      if (said) return;
      said = true;
      sub.dispose();
      if (!this.disposed) this.opts.onDrawn?.();
    };
    const sub = this.term.onRender(() => say());
    // A snapshot that changed nothing on screen renders nothing: the next frame after one says it all the same.
    requestAnimationFrame(() => requestAnimationFrame(say));
  }

  /** Output from the core. */
  output(data: string): void {
    if (this.disposed) return;
    if (this.phase !== 'live') {
      // Already part of the snapshot being fetched (or the pane is not drawn yet, or is
      // behind: the snapshot that redraws it will hold this).
      this.stats.dropped += data.length;
      this.acker.written(data.length);
      return;
    }
    this.stats.written += data.length;
    this.written = true;
    // In pieces, so the page draws and answers between them (writePieces).
    for (const piece of writePieces(data)) this.term.write(piece, () => this.acker.written(piece.length));
  }

  applySettings(settings: Settings, theme: ThemeName): void {
    this.settings = settings;
    this.theme = theme;
    const o = this.term.options;
    const font = terminalFont(settings.fontFamily);
    let refit = false;
    if (o.fontSize !== settings.fontSize) { o.fontSize = settings.fontSize; refit = true; }
    if (o.fontFamily !== font) { o.fontFamily = font; refit = true; }
    const scrollback = settings.scrollback || 10_000;
    if (o.scrollback !== scrollback) o.scrollback = scrollback;
    if (o.theme !== TERMINAL_THEMES[theme]) o.theme = TERMINAL_THEMES[theme];
    if (refit) this.scheduleFit();
  }

  focus(): void {
    this.term.focus();
  }

  /** The terminal's find (addon-search), loaded the first time it is asked for. */
  loadSearch(): Promise<SearchAddon> {
    this.search ??= import('@xterm/addon-search').then(({ SearchAddon }) => {
      const search = new SearchAddon({ highlightLimit: 1000 });
      if (!this.disposed) this.term.loadAddon(search);
      this.searchAddon = search;
      return search;
    });
    return this.search;
  }

  async find(text: string, backwards: boolean, options: ISearchOptions = {}): Promise<boolean> {
    const search = await this.loadSearch();
    if (this.disposed) return false;
    const opts = { ...options, decorations: SEARCH_DECORATIONS[this.theme] };
    return backwards ? search.findPrevious(text, opts) : search.findNext(text, opts);
  }

  /**
   * Find and mark (as `find` does: scrolled to, selected, the find's decorations) the copy of
   * `text` (case-sensitive) whose line is nearest `above` lines above the cursor's line (lines as
   * the pane's output has them: a wrapped line is one), the newer of two as near; without
   * `above`, the newest. A partial history (a window attached lately holds its last lines) is
   * fetched whole first: the line may be older than what is here. False when no line holds it.
   */
  async findLine(text: string, above?: number): Promise<boolean> {
    if (this.partial && this.phase === 'live') await this.sync('all');
    // (The snapshot's text parsed: a write's callback comes after every write before it.)
    await new Promise<void>((resolve) => this.term.write('', resolve));
    const search = await this.loadSearch();
    if (this.disposed) return false;
    const copies = above === undefined ? [] : linesHolding(this.term, text);
    let target: (typeof copies)[number] | undefined;
    for (const c of copies) if (!target || Math.abs(c.above - above!) < Math.abs(target.above - above!)) target = c;
    const opts = { caseSensitive: true, decorations: SEARCH_DECORATIONS[this.theme] };
    this.term.clearSelection();
    if (!search.findPrevious(text, opts)) return false;
    // Back from the newest copy, one find at a time, to the chosen line's (its rows: first..last).
    for (let step = 0; target && step < copies.length * 4 + 8; step++) {
      const at = this.term.getSelectionPosition()?.start.y;
      if (at === undefined || at <= target.last) break;
      if (!search.findPrevious(text, opts)) break;
    }
    return true;
  }

  clearFind(): void {
    this.searchAddon?.clearDecorations();
  }

  /** Scroll to the previous (-1) or next (+1) prompt; false when there is none that way. */
  jumpToPrompt(dir: -1 | 1): boolean {
    return this.prompts.jump(dir);
  }

  /** Whether prompt jumps apply now (the shell marks its prompts and no full-screen program runs). */
  canJumpToPrompt(): boolean {
    return this.prompts.available;
  }

  async copySelection(): Promise<void> {
    if (this.term.hasSelection()) await this.writeClipboard(this.term.getSelection());
  }

  async pasteFromClipboard(): Promise<void> {
    try {
      const text = await navigator.clipboard.readText();
      // term.paste applies bracketed paste mode when the program asked for it.
      if (text) this.term.paste(text);
    } catch {
      // No clipboard permission (Electron denies it): a native paste into xterm's
      // textarea goes through xterm's own paste handling, brackets included.
      this.term.focus();
      let pasted = false;
      try {
        pasted = document.execCommand('paste');
      } catch {
        pasted = false;
      }
      if (!pasted) this.opts.onError('The clipboard could not be read here; paste with the browser (Ctrl+V or the context menu) instead.');
    }
  }

  /** Plain text of the buffer (scrollback and screen, or only its last lines), for tests and copy. */
  text(lastLines = Infinity): string {
    const buf = this.term.buffer.active;
    const lines: string[] = [];
    for (let i = Math.max(0, buf.length - lastLines); i < buf.length; i++) lines.push(buf.getLine(i)?.translateToString(true) ?? '');
    while (lines.length && lines[lines.length - 1] === '') lines.pop();
    return lines.join('\n');
  }

  get isLive(): boolean {
    return this.phase === 'live';
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    document.removeEventListener('visibilitychange', this.onVisibility);
    this.acker.flush();
    cancelAnimationFrame(this.fitFrame);
    clearTimeout(this.resizeTimer);
    this.resizeObserver?.disconnect();
    document.fonts?.removeEventListener?.('loadingdone', this.fontsLoaded);
    if (this.poolMember) this.opts.webglPool?.leave(this.poolMember);
    this.dropWebgl();
    this.prompts.dispose();
    this.host.remove();
    this.term.dispose();
  }

  private loadRenderer(): void {
    const mode = this.opts.rendererMode;
    if (!usesWebgl(mode)) return;
    preloadRenderer(mode);
    webglModule!.then(({ WebglAddon }) => {
      if (this.disposed) return;
      const pool = this.opts.webglPool;
      if (!pool) {
        this.useWebgl(WebglAddon);
        return;
      }
      // The pool decides when this terminal draws with WebGL (at most WEBGL_POOL_SIZE of a window at once).
      this.poolMember = {
        standing: () => this.standing(),
        grant: () => this.useWebgl(WebglAddon),
        revoke: () => this.dropWebgl(),
      };
      pool.join(this.poolMember);
    }, () => {
      // The chunk did not load (the server went away meanwhile): the DOM renderer draws on.
    });
  }

  /** What the WebGL pool ranks this terminal by. */
  private standing(): Standing {
    const r = this.host.getBoundingClientRect();
    const w = Math.min(r.right, window.innerWidth) - Math.max(r.left, 0);
    const h = Math.min(r.bottom, window.innerHeight) - Math.max(r.top, 0);
    const area = this.host.isConnected && w > 0 && h > 0 ? w * h : 0;
    return { visible: area > 0, area, focusedAt: this.focusedAt, holds: this.webgl !== undefined };
  }

  /** Draw with WebGL; false when it could not (the DOM renderer draws on). */
  private useWebgl(Addon: typeof WebglAddon): boolean {
    if (this.disposed) return false;
    if (this.webgl) return true;
    const screen = this.host.querySelector('.xterm-screen');
    const before = new Set(screen?.querySelectorAll('canvas') ?? []);
    try {
      const addon = new Addon();
      this.term.loadAddon(addon);
      // Its canvas (the new one with a WebGL context; the link layer's beside it is 2D).
      const canvas = [...(screen?.querySelectorAll('canvas') ?? [])].find((c) => !before.has(c) && c.getContext('webgl2'));
      const onLost = (): void => {
        // Lost for good or for a while (a GPU reset, or the page over Chromium's limit): the DOM
        // renderer draws at once (xterm's addon would leave the pane blank for 3 s hoping for its
        // return), and the pool gives the place to another terminal.
        if (this.webgl?.addon !== addon) return;
        this.dropWebgl();
        if (this.poolMember) this.opts.webglPool?.lost(this.poolMember);
      };
      canvas?.addEventListener('webglcontextlost', onLost);
      addon.onContextLoss(onLost);
      this.webgl = { addon, canvas, onLost };
      this.renderer = 'webgl';
      return true;
    } catch {
      this.webgl = undefined;
      this.renderer = 'dom';
      return false;
    }
  }

  /**
   * Back to the DOM renderer (xterm's own, made as the addon goes; it draws the rows in the
   * next frame, before that frame is painted: no blank frame), and the context given back at
   * once: Chromium counts a context until it is collected, so one left to the garbage collector
   * would still push the page over its limit and make it lose a live one.
   */
  private dropWebgl(): void {
    const gl = this.webgl;
    if (!gl) return;
    this.webgl = undefined;
    this.renderer = 'dom';
    gl.canvas?.removeEventListener('webglcontextlost', gl.onLost);
    const context = gl.canvas?.getContext('webgl2');
    try {
      gl.addon.dispose();
    } catch {
      // A disposed terminal's addon: nothing left to draw.
    }
    context?.getExtension('WEBGL_lose_context')?.loseContext();
  }

  private scheduleFit(): void {
    this.fitStale = true;
    if (this.disposed || this.fitFrame) return;
    this.fitFrame = requestAnimationFrame(() => {
      this.fitFrame = 0;
      this.fitNow(false);
    });
  }

  /**
   * After a snapshot is drawn: back to the size the terminal was fitted to (the snapshot may be
   * at the core's other size: the first window after the pane was made elsewhere), without
   * measuring the page again (with many terminals drawing their snapshots, each measure was a
   * layout of the whole page). A box that changed meanwhile is fitted by the ResizeObserver.
   */
  private fitBack(): void {
    const to = this.fitted;
    if (!to) return this.fitNow(false);
    if (to.cols !== this.term.cols || to.rows !== this.term.rows) resizeKeepingAlt(this.term, to.cols, to.rows);
  }

  private fitNow(force: boolean): void {
    if (this.disposed || !this.opened) return;
    const measured = this.measured;
    // A fit asked with nothing changed since the last (a snapshot's, right after the terminal was
    // fitted) takes that one's size, not a layout of the page.
    const dims = measured ?? (!this.fitStale && this.fitted ? this.fitted : this.fit.proposeDimensions());
    const box = measured ? this.measuredBox : undefined;
    this.measured = undefined;
    this.measuredBox = undefined;
    // Too small to read (or nothing left to draw in): out of view (view.ts).
    if (dims && Number.isFinite(dims.cols) && Number.isFinite(dims.rows)) {
      this.bigEnough = readable(dims);
      if (!this.bigEnough) this.updateView();
    }
    if (!dims || !Number.isFinite(dims.cols) || !Number.isFinite(dims.rows) || dims.cols < 2 || dims.rows < 1) return;
    if (dims !== this.fitted) {
      this.fitted = { cols: dims.cols, rows: dims.rows };
      this.fittedBox = box ?? this.box();
    }
    this.fitStale = false;
    if (dims.cols !== this.term.cols || dims.rows !== this.term.rows) resizeKeepingAlt(this.term, dims.cols, dims.rows);
    this.updateView();
    clearTimeout(this.resizeTimer);
    if (force) this.sendSize(true);
    // While a divider is dragged the size changes every frame: tell the PTY once it settles.
    else this.resizeTimer = setTimeout(() => this.sendSize(false), RESIZE_SETTLE_MS);
  }

  private sendSize(force: boolean): void {
    if (this.disposed) return;
    const { cols, rows } = this.term;
    if (force || cols !== this.sentSize.cols || rows !== this.sentSize.rows) {
      this.sentSize = { cols, rows };
      this.opts.api.invoke('pane.resize', { paneId: this.paneId, cols, rows }).catch(() => { /* the next fit sends it again */ });
    }
  }

  private async writeClipboard(text: string): Promise<void> {
    try {
      await navigator.clipboard?.writeText(text);
    } catch {
      // Clipboard access needs a secure context and focus; selection still works.
    }
  }
}


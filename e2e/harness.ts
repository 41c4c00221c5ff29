/**
 * End-to-end harness: the real `serve` shell as a child process (fresh temp
 * XDG_STATE_HOME, HOME and cwd), a Chromium found as `npm start` finds one
 * (scripts/find-browser.mjs) driven by playwright-core, and
 * helpers to type into a pane and read its text.
 *
 * Reading text goes through the renderer's test hook (`window.__td`, present only
 * with `?test=1`), which reads xterm's own buffer; typing goes through the real
 * keyboard into xterm's textarea.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { Layout, PaneInfo } from '../preload/contract.ts';
import { personDotfiles, xdgOf } from '../main/panes/testing.ts';
import { anyNewer } from '../main/newer-files.ts';
import { stopService } from '../main/service/client.ts';
import { findBrowser } from '../scripts/find-browser.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const ARTIFACTS = path.join(ROOT, 'e2e', 'artifacts');

export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];

export interface Serve {
  /** The token URL the serve shell printed. */
  url: string;
  origin: string;
  port: number;
  token: string;
  stateDir: string;
  home: string;
  cwd: string;
  /** The environment serve (and so the service and every pane) started with: run a command as if in its home with it. */
  env: NodeJS.ProcessEnv;
  child: ChildProcess;
  /** Everything the child wrote to stderr (for failure messages). */
  stderr(): string;
  /** The service that serve relays to: its pid, from the lock in the state folder. */
  servicePid(): number | undefined;
  /** kill -9 serve (a window's process dying); the service and the folders stay. */
  kill(): Promise<void>;
  /** Stop serve and the service, and remove the folders. */
  close(): Promise<void>;
}

export interface StartServeOptions {
  /** Extra environment for the serve process (and so the service it starts, and every pane). */
  env?: Record<string, string>;
  timeoutMs?: number;
  /** The folders of an earlier serve (its service's state: reattach, or restart after it died); no --fresh. */
  reuse?: Pick<Serve, 'stateDir' | 'home' | 'cwd'>;
  /** Runs before serve starts, with its fresh folders (for example to write a settings.json). */
  before?: (dirs: { stateDir: string; home: string; cwd: string }) => void;
  /** More arguments for serve: `--service-socket` and `--service-token` make it a relay to a service elsewhere. */
  args?: string[];
}

/** How many of a text's lines match `re`. */
export const countLines = (text: string, re: RegExp): number => text.split('\n').filter((l) => re.test(l)).length;

/** A fresh temp dir (the test removes it). */
export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `td-e2e-${prefix}-`));
}

/** The agent pane "+ Agent" started (one not in `before`), once the chooser has closed and the pane is in the layout, its program saying `stand-in <name>`. */
export async function startedAgentPane(win: TdPage, before: Set<string>, name: string): Promise<PaneInfo> {
  await win.waitFor(async () => (await win.page.getByRole('dialog', { name: 'Start an agent' }).count()) === 0, 'the chooser to close');
  let agent: PaneInfo | undefined;
  await win.waitFor(async () => {
    agent = (await win.page.evaluate(() => Object.values((window as unknown as { __td: { store: { getState(): { panes: Record<string, PaneInfo> } } } }).__td.store.getState().panes))).find((p) => p.kind === 'agent' && !before.has(p.id));
    return !!agent && (await win.paneIds()).includes(agent.id);
  }, 'an agent pane in the layout');
  await win.waitForText(agent!.id, `stand-in ${name}`);
  return agent!;
}

/** After a file's tests: its window, browser and serve closed, and the folders it made removed (each only if it came to be). */
export async function closeAll(parts: { win?: TdPage; browser?: Browser; serve?: Serve; dirs?: Array<string | undefined> }): Promise<void> {
  await parts.win?.close();
  await parts.browser?.close();
  await parts.serve?.close();
  for (const d of parts.dirs ?? []) if (d) fs.rmSync(d, { recursive: true, force: true });
}

/** A PATH for the panes with `bin` (stand-ins for agent CLIs) first, then this machine's folders without node_modules' .bin (where the real CLIs are installed). */
export function pathWithStandIns(bin: string): string {
  return [bin, ...(process.env.PATH ?? '').split(':').filter((d) => d && !d.includes('node_modules'))].join(':');
}

/** The files the renderer is built from, its build's settings and the packages' lock among them. */
const RENDERER_SOURCES = ['renderer', 'common', 'preload', 'vite.config.ts', 'package.json', 'package-lock.json', 'tsconfig.json', 'scripts/build.mjs', 'scripts/bundle.mjs'].map((p) => path.join(ROOT, p));

let rendererChecked: Promise<void> | undefined;

/**
 * Make sure out/renderer is there and built since the last edit of its sources (npm test builds
 * it first; a lone `vitest run e2e/...` after an edit would otherwise test the old page). Checked
 * once a test file.
 */
export function ensureRendererBuilt(): Promise<void> {
  rendererChecked ??= buildRendererIfStale();
  return rendererChecked;
}

async function buildRendererIfStale(): Promise<void> {
  const index = path.join(ROOT, 'out', 'renderer', 'index.html');
  if (fs.existsSync(index) && !anyNewer(RENDERER_SOURCES, fs.statSync(index).mtimeMs)) return;
  if (fs.existsSync(index)) console.error('e2e: out/renderer is older than the renderer\'s sources: building it again (node scripts/build.mjs).');
  await new Promise<void>((resolve, reject) => {
    // Not with Vitest's NODE_ENV=test: Vite would bundle React's development JSX runtime with its
    // production build, and the window would throw at once ("getOwner is not a function").
    const env = { ...process.env };
    delete env.NODE_ENV;
    const p = spawn(process.execPath, [path.join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, stdio: 'inherit', env });
    p.on('error', (e) => reject(new Error(`building the renderer could not start (${e.message})`)));
    p.on('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`building the renderer failed (${signal ?? `exit ${code}`}); run npm run build to see why`))));
  });
}

/** Start `main/serve/main.ts --port 0 --fresh --no-open --cwd <tmp>` and wait for its `serving` line. */
export async function startServe(opts: StartServeOptions = {}): Promise<Serve> {
  await ensureRendererBuilt();
  const stateDir = opts.reuse?.stateDir ?? tempDir('state');
  const home = opts.reuse?.home ?? tempDir('home');
  const cwd = opts.reuse?.cwd ?? tempDir('cwd');
  if (!opts.reuse) personDotfiles(home, 'td$ ');
  opts.before?.({ stateDir, home, cwd });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // Every XDG folder in the test's home (installed Ticks, the agents' config, caches).
    ...xdgOf(home),
    XDG_STATE_HOME: stateDir,
    HOME: home,
    SHELL: '/bin/bash',
    TD_SOCKET: path.join(stateDir, 'app.sock'),
    TD_TEST: '1',
    ...opts.env,
  };
  // Agents' config and Skills go under the temp home too.
  for (const k of ['CLAUDE_CONFIG_DIR', 'CODEX_HOME']) if (!opts.env?.[k]) delete env[k];
  // Panes get a person's environment, not a CI job's: agent CLIs change under CI (Gemini CLI
  // with CI=true ignores its terminal and runs headless, waiting for a prompt on stdin).
  for (const k of Object.keys(env)) if (/^(CI|CI_.*|CONTINUOUS_INTEGRATION|GITHUB_ACTIONS|BUILD_NUMBER|RUN_ID)$/.test(k) && !opts.env?.[k]) delete env[k];
  const child = spawn(process.execPath, [
    // serve is only the relay, run as npm start runs it; the service it starts gets the core's V8 flags (spawnService).
    '--experimental-strip-types', '--no-warnings=ExperimentalWarning',
    path.join(ROOT, 'main', 'serve', 'main.ts'),
    // (no --fresh for a relay to a service elsewhere: serve refuses the two together)
    '--port', '0', ...(opts.reuse || opts.args?.includes('--service-socket') ? [] : ['--fresh']), '--no-open', '--cwd', cwd, ...(opts.args ?? []),
  ], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (d: string) => { err = (err + d).slice(-20_000); });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not print its URL within ${opts.timeoutMs ?? 30_000} ms; stderr: ${err}`));
    }, opts.timeoutMs ?? 30_000);
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (d: string) => {
      out += d;
      const m = /^serving (http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+)\s*$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (code ${code}) before it was ready; stderr: ${err}`));
    });
  });
  const u = new URL(url);
  const serve: Serve = {
    url,
    origin: u.origin,
    port: Number(u.port),
    token: u.searchParams.get('token')!,
    stateDir,
    home,
    cwd,
    env,
    child,
    stderr: () => {
      // The service logs beside its socket (it runs detached from serve).
      let log = '';
      try {
        log = fs.readFileSync(path.join(stateDir, 'terminal-delight', 'run', 'service.log'), 'utf8');
      } catch {
        log = '';
      }
      return `${err}${log ? `\n[service.log]\n${log.slice(-10_000)}` : ''}`;
    },
    servicePid() {
      try {
        return (JSON.parse(fs.readFileSync(path.join(stateDir, 'terminal-delight', 'run', 'service.lock'), 'utf8')) as { pid: number }).pid;
      } catch {
        return undefined;
      }
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGKILL');
      await exited;
    },
    async close() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise<void>((r) => child.once('exit', () => r()));
        child.kill('SIGTERM');
        const t = setTimeout(() => child.kill('SIGKILL'), 8_000);
        await exited;
        clearTimeout(t);
      }
      // serve is only the browser's door: the service it started keeps the panes until stopped.
      await stopService({ env }).catch(() => undefined);
      // A pane's last program may still be writing into home as it ends: retry (ENOTEMPTY).
      for (const d of [stateDir, home, cwd]) fs.rmSync(d, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    },
  };
  return serve;
}

/** A pane's folder ($XDG_STATE_HOME/terminal-delight/surfaces/<session>/<paneId>) under this serve's state. */
export async function paneFolder(w: TdPage, serve: Serve, paneId: string): Promise<string> {
  const session = await w.page.evaluate(() => (window as unknown as { __td: { store: { getState(): { session: string } } } }).__td.store.getState().session);
  return path.join(serve.stateDir, 'terminal-delight', 'surfaces', session, paneId);
}

/** Wait until the pane folder's bench.json says the bench is open (what a waiting hook reads). */
export async function waitForBenchFile(w: TdPage, folder: string): Promise<void> {
  await w.waitFor(() => {
    try {
      return JSON.parse(fs.readFileSync(path.join(folder, 'bench.json'), 'utf8')).open === true;
    } catch {
      return false;
    }
  }, 'bench.json to say open');
}

/** Write a surface into a pane folder the way agents should: beside, then renamed into place. */
export function dropSurface(folder: string, doc: { id: string } & Record<string, unknown>): void {
  fs.mkdirSync(folder, { recursive: true });
  const tmp = path.join(folder, `.${doc.id}.json.tmp`);
  fs.writeFileSync(tmp, JSON.stringify({ td: '0.4', ...doc }));
  fs.renameSync(tmp, path.join(folder, `${doc.id}.json`));
}

/**
 * playwright-core's own `--disable-features` list (its chromiumSwitches.ts). Chromium keeps
 * only the last `--disable-features` switch, so a launch that disables more features
 * repeats these with its own.
 */
const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync', 'DestroyProfileOnBrowserClose', 'HttpsUpgrades', 'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay', 'MediaRouter', 'PaintHolding', 'ThirdPartyStoragePartitioning', 'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin', 'OptimizationHints', 'NetworkTimeServiceQuerying', 'AimEnabled', 'PreconnectToSearch',
  'msForceBrowserSignIn', 'msEdgeUpdateLaunchServicesPreferredVersion',
];

export interface LaunchOptions {
  /**
   * Chromium features to turn off besides Playwright's, e.g. 'DeferRendererTasksAfterInput'
   * (Blink holds network tasks, a WebSocket message among them, after a keydown until
   * the next frame is produced; the keystroke benchmark measures with and without it).
   */
  disableFeatures?: string[];
  /** The browser's own environment (for example a HOME whose NSS database trusts a test CA). */
  env?: NodeJS.ProcessEnv;
}

/** One serve, one browser, one window whose first pane is at its prompt: what most e2e files start from. */
export interface PaneFixture {
  serve: Serve;
  browser: Browser;
  win: TdPage;
  paneId: string;
  /** The pane's folder (surfaces, actions.jsonl, inbound.jsonl, bench.json). */
  folder: string;
  tag: string;
  close(): Promise<void>;
}

export async function openPaneFixture(opts: WindowOptions = { theme: 'dark', viewport: { width: 1400, height: 900 } }): Promise<PaneFixture> {
  const serve = await startServe();
  const browser = await launchBrowser();
  const win = await openWindow(browser, serve, opts);
  const [paneId] = (await win.paneIds()) as [string];
  await win.waitForPrompt(paneId);
  const folder = await paneFolder(win, serve, paneId);
  const tag = (await win.pane(paneId))!.tag;
  return {
    serve, browser, win, paneId, folder, tag,
    async close() {
      await win.close().catch(() => undefined);
      await browser.close();
      await serve.close();
    },
  };
}

/** The browser the tests drive, found as `npm start` finds one (scripts/find-browser.mjs); one sentence when there is none. */
export function browserPath(): string {
  const found = findBrowser();
  if ('error' in found) throw new Error(found.error);
  return found.path;
}

export async function launchBrowser(opts: LaunchOptions = {}): Promise<Browser> {
  const extra = opts.disableFeatures?.length ? [`--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...opts.disableFeatures].join(',')}`] : [];
  return chromium.launch({
    executablePath: browserPath(),
    args: [...CHROMIUM_ARGS, ...extra],
    headless: true,
    ...(opts.env ? { env: opts.env } : {}),
  });
}

export interface WindowOptions {
  theme?: 'light' | 'dark';
  renderer?: 'dom' | 'webgl';
  colorScheme?: 'light' | 'dark';
  viewport?: { width: number; height: number };
  /** Runs before the page first loads (for example to route its WebSocket). */
  beforeLoad?: (page: Page) => Promise<void>;
}

/** A window: its own browser context (cookies), authenticated by the token URL, with the test hook on. */
export async function openWindow(browser: Browser, serve: Serve, opts: WindowOptions = {}): Promise<TdPage> {
  const context = await browser.newContext({
    viewport: opts.viewport ?? { width: 1280, height: 800 },
    colorScheme: opts.colorScheme ?? opts.theme ?? 'dark',
    deviceScaleFactor: 1,
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  // The token URL sets the cookie (the context's request API shares the browser's
  // cookie jar), then the page loads with our switches.
  const auth = await context.request.get(serve.url, { maxRedirects: 0 });
  if (auth.status() !== 302) throw new Error(`the token URL answered ${auth.status()}, not a redirect`);
  const q = new URLSearchParams({ test: '1' });
  if (opts.theme) q.set('theme', opts.theme);
  if (opts.renderer) q.set('renderer', opts.renderer);
  await opts.beforeLoad?.(page);
  const w = new TdPage(page, context, errors);
  // One reload is allowed: on a shared machine a concurrent build may have emptied
  // out/renderer for a moment while the page loaded.
  for (let attempt = 1; ; attempt++) {
    await page.goto(`${serve.origin}/?${q}`);
    try {
      await w.waitFor(async () => (await w.paneIds()).length > 0, 'the first pane to appear', attempt === 1 ? 15_000 : 30_000);
      await w.drawn();
      return w;
    } catch (e) {
      if (attempt >= 2) throw new Error(`${(e as Error).message}; page errors: ${errors.join(' | ') || 'none'}; serve stderr: ${serve.stderr().slice(-2000)}`);
      console.warn(`openWindow: no pane after the first load, reloading (page errors: ${errors.join(' | ') || 'none'})`);
    }
  }
}

export class TdPage {
  readonly page: Page;
  readonly context: BrowserContext;
  readonly errors: string[];

  constructor(page: Page, context: BrowserContext, errors: string[]) {
    this.page = page;
    this.context = context;
    this.errors = errors;
  }

  /**
   * Until the window's first paint (the picture of it the door put into index.html,
   * renderer/first-paint/) has given way to the window itself: its terminals have drawn.
   */
  async drawn(): Promise<void> {
    await this.waitFor(() => this.page.evaluate(() => !document.getElementById('td-first-paint')), 'the first paint to give way to the window (its terminals drawn)', 20_000);
  }

  /** Poll until `cond` holds, or fail saying what was awaited. */
  async waitFor(cond: () => Promise<boolean> | boolean, what: string, timeoutMs = 20_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    let last: unknown;
    for (;;) {
      try {
        if (await cond()) return;
      } catch (e) {
        last = e;
      }
      if (Date.now() > end) {
        throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${String(last)})` : ''}; ${await this.diagnose()}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** What the window shows that may explain a failure: its panes, notices and page errors. */
  async diagnose(): Promise<string> {
    try {
      const d = await this.page.evaluate(() => {
        const st = (window as unknown as { __td?: { store: { getState(): { layout: unknown; focused: string | null; connection: string; notices: Array<{ text: string }> } } } }).__td?.store.getState();
        return st ? { layout: st.layout, focused: st.focused, connection: st.connection, notices: st.notices.map((n) => n.text) } : null;
      });
      return `window: ${JSON.stringify(d)}; page errors: ${this.errors.join(' | ') || 'none'}`;
    } catch (e) {
      return `window unreadable (${String(e)})`;
    }
  }

  paneIds(): Promise<string[]> {
    return this.page.evaluate(() => (window as unknown as { __td?: { paneIds(): string[] } }).__td?.paneIds() ?? []);
  }

  layout(): Promise<Layout | null> {
    return this.page.evaluate(() => (window as unknown as { __td: { store: { getState(): { layout: Layout | null } } } }).__td.store.getState().layout);
  }

  pane(paneId: string): Promise<PaneInfo | undefined> {
    return this.page.evaluate((id) => (window as unknown as { __td: { store: { getState(): { panes: Record<string, PaneInfo> } } } }).__td.store.getState().panes[id], paneId);
  }

  focused(): Promise<string | null> {
    return this.page.evaluate(() => (window as unknown as { __td: { store: { getState(): { focused: string | null } } } }).__td.store.getState().focused);
  }

  /** The pane's buffer (scrollback and screen, or its last lines) as plain text. */
  async text(paneId: string, lastLines?: number): Promise<string> {
    return (await this.page.evaluate(([id, n]) => (window as unknown as { __td: { text(id: string, n?: number): string | null } }).__td.text(id, n ?? undefined), [paneId, lastLines ?? null] as const)) ?? '';
  }

  renderer(paneId: string): Promise<string | null> {
    return this.page.evaluate((id) => (window as unknown as { __td: { renderer(id: string): string | null } }).__td.renderer(id), paneId);
  }

  /** The size of the pane's xterm in the page. */
  size(paneId: string): Promise<{ cols: number; rows: number } | null> {
    return this.page.evaluate((id) => (window as unknown as { __td: { size(id: string): { cols: number; rows: number } | null } }).__td.size(id), paneId);
  }

  /** The size of the pane's PTY as the shell sees it (`stty size`, typed into the pane). */
  async ptySize(paneId: string): Promise<{ cols: number; rows: number }> {
    const n = Math.floor(Math.random() * 1e6);
    await this.typeLine(paneId, `echo "sz${n}-$(stty size | tr ' ' x)"`);
    const re = new RegExp(`^sz${n}-(\\d+)x(\\d+)$`, 'm');
    await this.waitForText(paneId, re);
    const m = re.exec(await this.text(paneId, 200))!;
    return { rows: Number(m[1]), cols: Number(m[2]) };
  }

  /** Wait until the PTY has the size the pane's xterm shows (resizes reach the PTY once a size settles). */
  async waitForPtySize(paneId: string, timeoutMs = 20_000): Promise<{ cols: number; rows: number }> {
    let last: unknown;
    await this.waitFor(async () => {
      const want = await this.size(paneId);
      const got = await this.ptySize(paneId);
      last = { want, got };
      return !!want && want.cols === got.cols && want.rows === got.rows;
    }, `the PTY of ${paneId} to match its xterm`, timeoutMs).catch((e: Error) => {
      throw new Error(`${e.message}: ${JSON.stringify(last)}`);
    });
    return (await this.size(paneId))!;
  }

  /** Wait until the pane's text (its last 200 lines: cheap to read during a flood) matches. */
  async waitForText(paneId: string, match: string | RegExp, timeoutMs = 20_000, lastLines = 200): Promise<void> {
    let last = '';
    try {
      await this.waitFor(async () => {
        last = await this.text(paneId, lastLines);
        return typeof match === 'string' ? last.includes(match) : match.test(last);
      }, `${String(match)} in pane ${paneId}`, timeoutMs);
    } catch (e) {
      throw new Error(`${(e as Error).message}; the pane shows:\n${last.split('\n').slice(-15).join('\n')}`);
    }
  }

  /** Wait for the shell's prompt (bash with PS1='td$ '). */
  waitForPrompt(paneId: string, timeoutMs = 20_000): Promise<void> {
    return this.waitForText(paneId, /td\$ *$/, timeoutMs);
  }

  /** Focus the pane's terminal by clicking it. */
  async focusTerminal(paneId: string): Promise<void> {
    await this.page.locator(`[data-pane-id="${paneId}"] .xterm-screen`).click();
    await this.page.locator(`[data-pane-id="${paneId}"] .xterm-helper-textarea`).focus();
  }

  /**
   * Give a pane's terminal the keyboard without clicking it: a click is a mouse event to a
   * program that tracks the mouse (Claude Code's permission prompt takes it as choosing the
   * option under the pointer, whichever that is on the screen at the time).
   */
  async focusKeyboard(paneId: string): Promise<void> {
    await this.page.locator(`[data-pane-id="${paneId}"] .xterm-helper-textarea`).focus();
  }

  /** Type a line into a pane with the real keyboard, then Enter. */
  async typeLine(paneId: string, line: string): Promise<void> {
    await this.focusTerminal(paneId);
    await this.page.keyboard.type(line);
    await this.page.keyboard.press('Enter');
  }

  header(paneId: string) {
    return this.page.locator(`[data-pane-id="${paneId}"] .pane-header`);
  }

  /** Whether everything in the title bar is inside the window as it is now (none of it cut or past the edge), and its sizes. */
  async titleBarFits(): Promise<{ fits: boolean; sizes: string }> {
    const width = this.page.viewportSize()!.width;
    const bar = await this.page.locator('.titlebar').evaluate((e) => ({ scroll: e.scrollWidth, client: e.clientWidth, right: Math.max(...[...e.children].map((c) => c.getBoundingClientRect().right)) }));
    return { fits: bar.scroll <= bar.client && bar.right <= width, sizes: `${width} px: ${JSON.stringify(bar)}` };
  }

  async screenshot(name: string): Promise<string> {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    const file = path.join(ARTIFACTS, `${name}.png`);
    await this.page.screenshot({ path: file });
    return file;
  }

  async close(): Promise<void> {
    await this.context.close();
  }
}

/** Serious and critical axe violations on the page as it is, one line each (the agent's sandboxed HTML left out). */
/** Lose the WebGL context of a pane's terminal for good, as a GPU reset does; false when it has none. */
export function loseWebglContext(w: TdPage, paneId: string): Promise<boolean> {
  return w.page.evaluate((id) => {
    for (const c of document.querySelectorAll<HTMLCanvasElement>(`[data-pane-id="${id}"] .xterm-screen canvas`)) {
      const ext = c.getContext('webgl2')?.getExtension('WEBGL_lose_context');
      if (ext) { ext.loseContext(); return true; }
    }
    return false;
  }, paneId);
}

export async function axeViolations(w: { page: Page }, what: string): Promise<string[]> {
  const result = await new AxeBuilder({ page: w.page }).exclude('iframe').analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${what}: ${v.id} (${v.impact}) ${v.help}: ${v.nodes.slice(0, 4).map((n) => `${n.target.join(' ')} [${(n.failureSummary ?? '').replace(/\s+/g, ' ').slice(0, 160)}]`).join(' | ')}`);
}

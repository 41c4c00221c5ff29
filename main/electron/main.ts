/**
 * The Electron shell, a thin relay to the per-user service (docs/design/service.md):
 * BrowserWindows (contextIsolation, sandbox, no nodeIntegration, webSecurity) loading the
 * renderer from the privileged `app://` scheme, each window's contract carried over IPC,
 * every sender checked, to its own service connection (main/electron/relay.ts);
 * navigation and new windows refused, permissions denied, a native menu whose items
 * arrive as 'command' events, and a tray icon while panes run with no window open.
 * Closing windows, or quitting this process, leaves every pane running in the service.
 * The only file that imports Electron (with preload/index.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { app, BrowserWindow, dialog, ipcMain, Menu, nativeImage, nativeTheme, Notification, protocol, session, shell, Tray, type IpcMainInvokeEvent, type MenuItemConstructorOptions, type WebContents } from 'electron';
import type { AppCommand, EventName, Events, PaneInfo, RequestName, Surface } from '../../preload/contract.ts';
import { REQUEST_NAMES } from '../../preload/contract.ts';
import { appRoot } from '../panes/env.ts';
import { menuTemplate, offersDevTools, revealTarget, shouldNotifyNatively } from './desktop.ts';
import { ElectronRelay } from './relay.ts';
import { makeWayForFresh } from '../service/fresh.ts';
import { appCspFor, ORIGIN, routeAppUrl, SCHEME, trustedSenderUrl, WINDOW_BACKGROUND, withAppFirstPaint } from './routes.ts';

const rendererDir = path.join(appRoot, 'out', 'renderer');
const preloadFile = path.join(appRoot, 'out', 'electron', 'preload.cjs');

// Chromium holds network and IPC tasks after a keydown until the next frame is out
// (DeferRendererTasksAfterInput), so a keystroke's echo waited up to a frame more:
// measured in Chromium, keystroke-to-paint p99 30.6 ms with it, 20.2 ms without
// (bench/window.bench.ts). The only --disable-features switch this app passes.
app.commandLine.appendSwitch('disable-features', 'DeferRendererTasksAfterInput');
// codeCache: Chromium keeps V8's compiled code for app:// scripts as it does for http(s), so a
// window opened after the first skips most of parsing the ~660 KB main script (about 100 ms
// of the attach on the bench's machine: docs/spec/performance.md). Without it, a custom
// scheme gets no code cache at all.
protocol.registerSchemesAsPrivileged([{ scheme: SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, stream: true, codeCache: true } }]);

const windows = new Set<BrowserWindow>();
let relay: ElectronRelay;
let tray: Tray | undefined;
/** Panes running in the service, as the main's own connection last heard. */
const running = new Map<string, PaneInfo>();

/** The theme the service last drew a window's first paint in: the next window opens in its colour. */
let lastTheme: 'light' | 'dark' | undefined;

/** Files for app://td/...: the core's file routes (through the service) first, then the built renderer. */
async function serveAppFile(request: Request): Promise<Response> {
  const route = await routeAppUrl(request.url, (prefix, rest) => relay.resolveFile(prefix, rest).catch(() => undefined), rendererDir);
  const headers: Record<string, string> = { 'X-Content-Type-Options': 'nosniff' };
  if ('status' in route) return new Response(route.text, { status: route.status, headers });
  try {
    // The window's page carries its first paint, from the service (the same picture serve's door draws).
    const built = await fs.promises.readFile(route.file);
    const csp = appCspFor(route.file, built, rendererDir, route.csp);
    const body = await withAppFirstPaint(route.file, built, rendererDir, async () => {
      const answer = await relay.firstPaint(nativeTheme.shouldUseDarkColors ? 'dark' : 'light');
      if (answer?.theme) lastTheme = answer.theme;
      return answer;
    });
    return new Response(body, { status: 200, headers: { ...headers, 'Content-Type': route.type, 'Content-Security-Policy': csp } });
  } catch {
    return new Response('Not found.', { status: 404, headers });
  }
}

/** Only our own page, as the window's top frame (never a frame inside it), may call the core. */
function trustedSender(event: IpcMainInvokeEvent): boolean {
  const frame = event.senderFrame;
  return !!frame && frame.parent === null && trustedSenderUrl(frame.url);
}

function windowId(wc: WebContents): string {
  return `wc-${wc.id}`;
}

function webContentsOf(id: string): WebContents | undefined {
  for (const w of windows) if (!w.isDestroyed() && windowId(w.webContents) === id) return w.webContents;
  return undefined;
}

function installIpc(): void {
  for (const name of REQUEST_NAMES) {
    ipcMain.handle(`td:${name}`, async (event, req: unknown) => {
      if (!trustedSender(event)) return { ok: false, error: 'refused: this page is not the Terminal Delight window' };
      try {
        // The desktop's own: an artifact's local file handed to the desktop's program.
        if (name === 'artifact.reveal') return { ok: true, res: await reveal(windowId(event.sender), req as { paneId: string; surfaceId: string }) };
        const res = await relay.request(windowId(event.sender), name as RequestName, req as never);
        return { ok: true, res };
      } catch (err) {
        return { ok: false, error: err instanceof Error ? err.message : String(err) };
      }
    });
  }
  relay.onWindowEvent((id, name, payload) => {
    const wc = webContentsOf(id);
    if (wc && !wc.isDestroyed()) wc.send(`td:evt:${name}`, payload);
  });
  // The service restarted under a window: its link is made anew; the window says hello again.
  relay.onWindowLost((id) => {
    const wc = webContentsOf(id);
    if (wc && !wc.isDestroyed()) wc.send('td:evt:command', { name: 'resync' });
  });
}

async function reveal(id: string, req: { paneId: string; surfaceId: string }): Promise<{ ok: boolean; error?: string }> {
  if (typeof req?.paneId !== 'string' || typeof req?.surfaceId !== 'string') return { ok: false, error: 'paneId and surfaceId must be strings' };
  const list = (await relay.request(id, 'surface.list', { paneId: req.paneId })) as Surface[];
  const target = revealTarget(list.find((s) => s.id === req.surfaceId), req.surfaceId);
  if ('error' in target) return { ok: false, error: target.error };
  const failure = await shell.openPath(target.file);
  return failure ? { ok: false, error: `The desktop could not open ${target.file}: ${failure}` } : { ok: true };
}

function sendCommand(name: AppCommand, paneId?: string): void {
  const w = BrowserWindow.getFocusedWindow() ?? [...windows][0];
  if (w && !w.isDestroyed()) w.webContents.send('td:evt:command', paneId ? { name, paneId } : { name });
}

function showWindow(paneId?: string): void {
  const w = [...windows][0] ?? openWindow();
  if (w.isMinimized()) w.restore();
  w.show();
  w.focus();
  if (paneId) sendCommand('focus-pane', paneId);
}

/**
 * What outlives windows, from the main's own service connection: native notifications
 * (a click brings a window and the pane forward), the dock badge and title with the
 * unseen count, and the tray while panes run and no window is open.
 */
function installDesktop(): void {
  const unseen = new Map<string, number>();
  const showBadge = (): void => {
    const total = [...unseen.values()].reduce((x, y) => x + y, 0);
    app.setBadgeCount(total);
    for (const w of windows) if (!w.isDestroyed()) w.setTitle(total ? `Terminal Delight (${total})` : 'Terminal Delight');
  };
  let focusedPane: string | null = null;
  relay.onEvent((name: EventName, payload: unknown) => {
    if (name === 'layout.changed') {
      focusedPane = (payload as Events['layout.changed']).focused;
    } else if (name === 'notify') {
      if (!Notification.isSupported()) return;
      const n = payload as Events['notify'];
      if (!shouldNotifyNatively(n, BrowserWindow.getFocusedWindow() !== null, focusedPane)) return;
      const note = new Notification({ title: n.title, body: n.body, silent: false });
      note.on('click', () => showWindow(n.paneId));
      note.show();
    } else if (name === 'pane.updated') {
      const p = payload as PaneInfo;
      if (p.status === 'running') running.set(p.id, p);
      else running.delete(p.id);
      if ((unseen.get(p.id) ?? 0) !== p.unseen) {
        unseen.set(p.id, p.unseen);
        showBadge();
      }
      updateTray();
    } else if (name === 'pane.removed') {
      const id = (payload as { paneId: string }).paneId;
      unseen.delete(id);
      running.delete(id);
      showBadge();
      updateTray();
    }
  });
}

/** The tray: present while panes run and no window is open (and always on macOS's menu bar while panes run). */
function updateTray(): void {
  const want = running.size > 0 && (windows.size === 0 || process.platform === 'darwin');
  if (!want) {
    tray?.destroy();
    tray = undefined;
    if (windows.size === 0 && running.size === 0 && process.platform !== 'darwin') app.quit();
    return;
  }
  if (!tray) {
    const icon = nativeImage.createFromPath(path.join(appRoot, 'assets', 'icons', 'icon-256.png')).resize({ width: 18, height: 18 });
    tray = new Tray(icon);
    tray.on('click', () => showWindow());
  }
  const list = [...running.values()].slice(0, 12);
  tray.setToolTip(`Terminal Delight: ${running.size} pane${running.size === 1 ? '' : 's'} running`);
  tray.setContextMenu(Menu.buildFromTemplate([
    { label: 'Open Terminal Delight', click: () => showWindow() },
    { type: 'separator' },
    ...list.map((p): MenuItemConstructorOptions => ({
      label: `${p.agent ? `${p.agent.status === 'blocked' ? '● ' : ''}` : ''}${p.title}`.slice(0, 60),
      click: () => showWindow(p.id),
    })),
    { type: 'separator' },
    { label: 'Quit and End All Panes…', click: () => void quitAll() },
  ]));
}

/** From the tray or with no window: ask natively, listing what runs, then end it all. */
async function quitAll(): Promise<void> {
  const w = BrowserWindow.getFocusedWindow() ?? [...windows][0];
  if (w && !w.isDestroyed()) {
    sendCommand('quit-all');
    return;
  }
  const info = await relay.ask('service.info', {}).catch(() => undefined);
  const names = info ? [...info.running.map((p) => `${p.program} — ${p.title}`), ...info.ticks.map((t) => `Tick — ${t.title}`)] : [];
  const { response } = await dialog.showMessageBox({
    type: 'warning',
    buttons: ['End All Panes and Quit', 'Keep Running'],
    defaultId: 1,
    cancelId: 1,
    message: 'Quit and end all panes?',
    detail: names.length ? `Still running:\n${names.join('\n')}` : 'Nothing is running.',
  });
  if (response !== 0) return;
  await relay.ask('service.quit', { endPanes: true }).catch(() => undefined);
  relay.close();
  app.exit(0);
}

function buildMenu(): void {
  Menu.setApplicationMenu(Menu.buildFromTemplate(menuTemplate(process.platform, { command: sendCommand, quitAll: () => void quitAll(), devTools: offersDevTools(app) })));
}

function openWindow(): BrowserWindow {
  const win = new BrowserWindow({
    width: 1280,
    height: 820,
    title: 'Terminal Delight',
    // The theme the last window was drawn in (the setting may differ from the desktop's), else the desktop's.
    backgroundColor: WINDOW_BACKGROUND[lastTheme ?? (nativeTheme.shouldUseDarkColors ? 'dark' : 'light')],
    webPreferences: {
      preload: preloadFile,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      webviewTag: false,
      spellcheck: false,
      devTools: offersDevTools(app),
    },
  });
  windows.add(win);
  updateTray();
  const wc = win.webContents;
  const id = windowId(wc);
  wc.on('will-navigate', (event, url) => {
    if (url !== wc.getURL()) event.preventDefault();
  });
  wc.on('will-redirect', (event) => event.preventDefault());
  wc.on('will-attach-webview', (event) => event.preventDefault());
  wc.setWindowOpenHandler(({ url }) => {
    // Links clicked in a terminal open in the person's browser, never in the app.
    if (/^https?:\/\//i.test(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  // The window's link to the service goes with it; its panes keep running.
  wc.on('destroyed', () => relay.closeWindow(id));
  win.on('closed', () => {
    windows.delete(win);
    updateTray();
  });
  void win.loadURL(`${ORIGIN}/index.html`);
  return win;
}

function startDir(): string {
  const cwd = process.cwd();
  return cwd === '/' || !fs.existsSync(cwd) ? os.homedir() : cwd;
}

/** A service of another contract protocol (an older app left it running): offer to restart it. */
async function startRelay(): Promise<void> {
  for (;;) {
    try {
      await relay.start();
      return;
    } catch (err) {
      const refused = (err as { code?: string }).code === 'EREFUSED';
      const { response } = await dialog.showMessageBox({
        type: 'warning',
        buttons: refused ? ['Restart the Service', 'Quit'] : ['Try Again', 'Quit'],
        defaultId: 0,
        cancelId: 1,
        message: refused ? 'Terminal Delight\'s running service is of another version.' : 'Terminal Delight\'s service could not be started.',
        detail: refused ? `${(err as Error).message}\n\nRestarting it ends its panes; they come back, ready to resume.` : (err as Error).message,
      });
      if (response !== 0) {
        app.exit(1);
        return;
      }
      if (refused) await relay.restartService().catch(() => undefined);
    }
  }
}

async function main(): Promise<void> {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }
  await app.whenReady();
  const s = session.defaultSession;
  s.setPermissionRequestHandler((_wc, permission, callback) => callback(permission === 'clipboard-sanitized-write'));
  s.setPermissionCheckHandler((_wc, permission) => permission === 'clipboard-sanitized-write');
  const fresh = process.argv.includes('--fresh');
  // --fresh with a service running: applied when that loses nothing, else refused with why (main/service/fresh.ts).
  if (fresh) {
    const way = await makeWayForFresh();
    if (!way.ok) {
      process.stderr.write(`terminal-delight: ${way.error}\n`);
      dialog.showErrorBox('Terminal Delight did not start afresh', way.error);
      app.exit(1);
      return;
    }
  }
  relay = new ElectronRelay({ cwd: startDir(), fresh });
  protocol.handle(SCHEME, serveAppFile);
  await startRelay();
  installDesktop();
  installIpc();
  buildMenu();
  openWindow();
  // The service restarted under us (an upgrade, a crash): the main's own link comes back.
  relay.onServiceGone(() => void startRelay());
  app.on('second-instance', () => showWindow());
  app.on('activate', () => {
    if (windows.size === 0) openWindow();
  });
  // Closing the last window leaves the panes running (the service keeps them; the tray
  // stays while they run). The app process quits when nothing runs (updateTray).
  app.on('window-all-closed', () => updateTray());
  app.on('will-quit', () => relay.close());
}

void main();

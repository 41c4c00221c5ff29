/**
 * The Electron shell: one BrowserWindow (contextIsolation, sandbox, no nodeIntegration,
 * webSecurity) loading the renderer from the privileged `app://` scheme, the contract
 * carried over IPC with every sender checked, navigation and new windows refused,
 * permissions denied, and a native menu whose items arrive as 'command' events.
 * The only file that imports Electron (with preload/index.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { app, BrowserWindow, ipcMain, Menu, Notification, protocol, session, shell, type IpcMainInvokeEvent, type MenuItemConstructorOptions, type WebContents } from 'electron';
import type { AppCommand, EventName, Events, PaneInfo, RequestName } from '../../preload/contract.ts';
import { REQUEST_NAMES } from '../../preload/contract.ts';
import { createApp, type App } from '../app.ts';
import { appRoot } from '../panes/env.ts';
import { offersDevTools, revealTarget, shouldNotifyNatively } from './desktop.ts';
import { ORIGIN, routeAppUrl, SCHEME, trustedSenderUrl } from './routes.ts';

const rendererDir = path.join(appRoot, 'out', 'renderer');
const preloadFile = path.join(appRoot, 'out', 'electron', 'preload.cjs');

// The core's young generation kept small, as `npm start` runs serve: a flood's garbage is
// collected early instead of growing resident memory (bench/window.bench.ts).
app.commandLine.appendSwitch('js-flags', '--max-semi-space-size=8');
// Chromium holds network and IPC tasks after a keydown until the next frame is out
// (DeferRendererTasksAfterInput), so a keystroke's echo waited up to a frame more:
// measured in Chromium, keystroke-to-paint p99 30.6 ms with it, 20.2 ms without
// (bench/window.bench.ts). The only --disable-features switch this app passes.
app.commandLine.appendSwitch('disable-features', 'DeferRendererTasksAfterInput');
protocol.registerSchemesAsPrivileged([{ scheme: SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, stream: true } }]);

let core: App | undefined;
const windows = new Set<BrowserWindow>();

/** Files for app://td/...: core.serveFiles routes first, then the built renderer. */
async function serveAppFile(request: Request): Promise<Response> {
  const route = routeAppUrl(request.url, core?.core, rendererDir);
  const headers: Record<string, string> = { 'X-Content-Type-Options': 'nosniff' };
  if ('status' in route) return new Response(route.text, { status: route.status, headers });
  try {
    const body = await fs.promises.readFile(route.file);
    return new Response(body, { status: 200, headers: { ...headers, 'Content-Type': route.type, 'Content-Security-Policy': route.csp } });
  } catch {
    return new Response('Not found.', { status: 404, headers });
  }
}

/** Only our own page, as the window's top frame (never a frame inside it), may call the core. */
function trustedSender(event: IpcMainInvokeEvent): boolean {
  const frame = event.senderFrame;
  return !!frame && frame.parent === null && trustedSenderUrl(frame.url);
}

function clientOf(wc: WebContents): { id: string } {
  return { id: `wc-${wc.id}` };
}

function installIpc(a: App): void {
  for (const name of REQUEST_NAMES) {
    ipcMain.handle(`td:${name}`, async (event, req: unknown) => {
      if (!trustedSender(event)) return { ok: false, error: 'refused: this page is not the Terminal Delight window' };
      try {
        const res = await a.core.request(name as RequestName, req as never, clientOf(event.sender));
        return { ok: true, res };
      } catch (err) {
        return { ok: false, error: err instanceof Error ? err.message : String(err) };
      }
    });
  }
  a.core.onEvent((name: EventName, payload: unknown) => {
    for (const w of windows) if (!w.isDestroyed()) w.webContents.send(`td:evt:${name}`, payload);
  });
  // Unseen surfaces across panes: the dock badge and the window title.
  const unseen = new Map<string, number>();
  const showBadge = (): void => {
    const total = [...unseen.values()].reduce((x, y) => x + y, 0);
    app.setBadgeCount(total);
    for (const w of windows) if (!w.isDestroyed()) w.setTitle(total ? `Terminal Delight (${total})` : 'Terminal Delight');
  };
  a.core.onEvent((name: EventName, payload: unknown) => {
    if (name === 'pane.updated') {
      const p = payload as PaneInfo;
      if ((unseen.get(p.id) ?? 0) !== p.unseen) {
        unseen.set(p.id, p.unseen);
        showBadge();
      }
    } else if (name === 'pane.removed') {
      unseen.delete((payload as { paneId: string }).paneId);
      showBadge();
    }
  });
}

function sendCommand(name: AppCommand, paneId?: string): void {
  const w = BrowserWindow.getFocusedWindow() ?? [...windows][0];
  if (w && !w.isDestroyed()) w.webContents.send('td:evt:command', paneId ? { name, paneId } : { name });
}

/**
 * The desktop: 'notify' as a native notification when the app is not in front or the
 * pane is not the focused one (a click brings the window and the pane forward), and
 * 'artifact.reveal' handing an artifact's local file to the desktop's own program.
 */
function installDesktop(a: App): void {
  a.core.onEvent((name: EventName, payload: unknown) => {
    if (name !== 'notify' || !Notification.isSupported()) return;
    const n = payload as Events['notify'];
    if (!shouldNotifyNatively(n, BrowserWindow.getFocusedWindow() !== null, a.panes.focused)) return;
    const note = new Notification({ title: n.title, body: n.body, silent: false });
    note.on('click', () => {
      const w = [...windows][0];
      if (!w || w.isDestroyed()) return;
      if (w.isMinimized()) w.restore();
      w.show();
      w.focus();
      if (n.paneId) sendCommand('focus-pane', n.paneId);
    });
    note.show();
  });
  a.core.handle('artifact.reveal', async ({ paneId, surfaceId }, client) => {
    const list = await a.core.request('surface.list', { paneId }, client);
    const target = revealTarget(list.find((s) => s.id === surfaceId), surfaceId);
    if ('error' in target) return { ok: false, error: target.error };
    const failure = await shell.openPath(target.file);
    return failure ? { ok: false, error: `The desktop could not open ${target.file}: ${failure}` } : { ok: true };
  });
}

function buildMenu(): void {
  const cmd = (label: string, name: AppCommand, accelerator?: string): MenuItemConstructorOptions => ({ label, accelerator, click: () => sendCommand(name) });
  const template: MenuItemConstructorOptions[] = [
    ...(process.platform === 'darwin' ? [{ role: 'appMenu' as const }] : []),
    {
      label: 'Pane',
      submenu: [
        cmd('New Pane', 'new-pane', 'CmdOrCtrl+Shift+T'),
        cmd('New Agent Pane', 'new-agent', 'CmdOrCtrl+Shift+A'),
        cmd('Open Tick…', 'open-tick', 'CmdOrCtrl+Shift+O'),
        { type: 'separator' },
        cmd('Settings…', 'open-settings', 'CmdOrCtrl+,'),
        { type: 'separator' },
        cmd('Split Right', 'split-right', 'CmdOrCtrl+Shift+D'),
        cmd('Split Down', 'split-down', 'CmdOrCtrl+Shift+E'),
        cmd('Close Pane', 'close-pane', 'CmdOrCtrl+Shift+W'),
        { type: 'separator' },
        cmd('Focus Next Pane', 'focus-next', 'CmdOrCtrl+Shift+]'),
        cmd('Focus Previous Pane', 'focus-prev', 'CmdOrCtrl+Shift+['),
        { type: 'separator' },
        ...(process.platform === 'darwin' ? [] : [{ role: 'quit' as const }]),
      ],
    },
    { role: 'editMenu' },
    {
      label: 'View',
      submenu: [
        cmd('Find', 'find', 'CmdOrCtrl+Shift+F'),
        cmd('Toggle Workbench', 'toggle-bench', 'CmdOrCtrl+Shift+B'),
        { type: 'separator' },
        cmd('Zoom In', 'zoom-in', 'CmdOrCtrl+='),
        cmd('Zoom Out', 'zoom-out', 'CmdOrCtrl+-'),
        cmd('Actual Size', 'zoom-reset', 'CmdOrCtrl+0'),
        { type: 'separator' },
        ...(offersDevTools(app) ? [{ role: 'toggleDevTools' as const }] : []),
        { role: 'togglefullscreen' },
      ],
    },
    { role: 'windowMenu' },
  ];
  Menu.setApplicationMenu(Menu.buildFromTemplate(template));
}

function openWindow(a: App): BrowserWindow {
  const win = new BrowserWindow({
    width: 1280,
    height: 820,
    title: 'Terminal Delight',
    backgroundColor: '#1e1e1e',
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
  const wc = win.webContents;
  const client = clientOf(wc);
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
  wc.on('destroyed', () => a.core.clientGone(client));
  win.on('closed', () => windows.delete(win));
  void win.loadURL(`${ORIGIN}/index.html`);
  return win;
}

function startDir(): string {
  const cwd = process.cwd();
  return cwd === '/' || !fs.existsSync(cwd) ? os.homedir() : cwd;
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
  protocol.handle(SCHEME, serveAppFile);
  core = await createApp({ shell: 'electron', cwd: startDir(), fresh: process.argv.includes('--fresh') });
  installDesktop(core);
  installIpc(core);
  buildMenu();
  openWindow(core);
  app.on('second-instance', () => {
    const w = [...windows][0];
    if (w) {
      if (w.isMinimized()) w.restore();
      w.focus();
    }
  });
  app.on('activate', () => {
    if (windows.size === 0 && core) openWindow(core);
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  let disposed = false;
  app.on('will-quit', (event) => {
    if (disposed || !core) return;
    event.preventDefault();
    disposed = true;
    // Save the session and hang up every pane, then really quit.
    void core.dispose().finally(() => app.exit(0));
  });
}

void main();

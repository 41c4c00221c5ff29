/**
 * The Electron shell's desktop hand-offs, as pure decisions (no Electron here, so
 * they are tested under plain Node): when a 'notify' event becomes a native
 * notification, which local file an artifact surface hands to shell.openPath, and
 * whether Developer Tools are offered.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BaseWindow, MenuItemConstructorOptions } from 'electron';
import type { AppCommand, Surface } from '../../preload/contract.ts';
import { localPath } from '../surfaces/artifacts.ts';

/**
 * A native notification is shown when no window of the app has focus, or when the
 * event names a pane that is not the focused one. A notice without a pane (a Tick
 * failed to open) shows only when the app is not in front.
 */
export function shouldNotifyNatively(n: { paneId?: string }, appFocused: boolean, focusedPane: string | null): boolean {
  if (!appFocused) return true;
  return !!n.paneId && n.paneId !== focusedPane;
}

/**
 * Whether the View menu offers Toggle Developer Tools (and the window allows them):
 * in development (`npm start`, an unpackaged app) only. A packaged app has neither.
 */
export function offersDevTools(app: { isPackaged: boolean }): boolean {
  return !app.isPackaged;
}

/** The file an artifact surface names, or a one-sentence reason it cannot be opened. */
export function revealTarget(surface: Surface | undefined, surfaceId: string): { file: string } | { error: string } {
  if (!surface) return { error: `There is no surface "${surfaceId}" on this bench any more; ask the agent to send it again.` };
  const location = typeof surface.model.location === 'string' ? surface.model.location : '';
  if (surface.kind !== 'artifact' || !location) return { error: `Surface "${surfaceId}" is not an artifact; only artifacts open on the desktop.` };
  const file = localPath(location);
  if (!file) return { error: `${location} is not a local file; web addresses open in the browser instead.` };
  const st = fs.statSync(file, { throwIfNoEntry: false });
  if (!st || !st.isFile()) return { error: `${file} is not there (any more); ask the agent to write it again.` };
  if (runsWhenOpened(file, st.mode)) {
    return { error: `${path.basename(file)} is a program or launcher, and opening it would run it; Terminal Delight does not run files an agent names, so open it yourself if you trust it.` };
  }
  return { file };
}

/**
 * Extensions the desktop runs (rather than shows) when a file is opened: programs,
 * scripts and launchers on Windows, macOS and Linux desktops.
 */
const LAUNCHERS = new Set([
  '.exe', '.com', '.bat', '.cmd', '.msi', '.msp', '.scr', '.pif', '.cpl', '.ps1', '.psm1', '.vbs', '.vbe', '.js', '.jse',
  '.wsf', '.wsh', '.hta', '.lnk', '.url', '.reg', '.inf', '.application', '.appref-ms', '.jar', '.jnlp',
  '.app', '.command', '.tool', '.terminal', '.workflow', '.scpt', '.applescript', '.pkg', '.mpkg',
  '.desktop', '.sh', '.bash', '.zsh', '.csh', '.ksh', '.fish', '.run', '.bin', '.appimage', '.deb', '.rpm', '.snap', '.flatpakref',
  '.py', '.pyw', '.pl', '.rb', '.php',
]);

/** Whether handing this file to shell.openPath would run it: an executable bit, or a launcher's extension. */
export function runsWhenOpened(file: string, mode: number): boolean {
  if (process.platform !== 'win32' && (mode & 0o111) !== 0) return true;
  return LAUNCHERS.has(path.extname(file).toLowerCase());
}

/**
 * The application menu. Nothing in it takes Ctrl+W on Linux and Windows: that is a shell's
 * delete-word, and the 'close' role (alone, or inside 'windowMenu') would close the window
 * on it whenever no terminal had the keyboard. macOS keeps its own Window menu (Cmd+W).
 */
export function menuTemplate(platform: string, on: { command(name: AppCommand): void; quitAll(): void; devTools: boolean }): MenuItemConstructorOptions[] {
  const mac = platform === 'darwin';
  const cmd = (label: string, name: AppCommand, accelerator?: string): MenuItemConstructorOptions => ({ label, accelerator, click: () => on.command(name) });
  return [
    ...(mac ? [{ role: 'appMenu' as const }] : []),
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
        // Closing windows keeps every pane running; this ends them (after asking).
        { label: 'Quit and End All Panes…', accelerator: 'CmdOrCtrl+Shift+Q', click: () => on.quitAll() },
        ...(mac ? [] : [{ label: 'Close Window', click: (_item: unknown, win: BaseWindow | undefined) => win?.close() }]),
      ],
    },
    { role: 'editMenu' },
    {
      label: 'View',
      submenu: [
        cmd('Find in Pane', 'find', 'CmdOrCtrl+Shift+L'),
        cmd('Toggle Workbench', 'toggle-bench', 'CmdOrCtrl+Shift+B'),
        cmd('Search Everything…', 'search-everything', 'CmdOrCtrl+Shift+F'),
        cmd('Usage…', 'show-usage', 'CmdOrCtrl+Shift+U'),
        { type: 'separator' },
        cmd('Zoom In', 'zoom-in', 'CmdOrCtrl+='),
        cmd('Zoom Out', 'zoom-out', 'CmdOrCtrl+-'),
        cmd('Actual Size', 'zoom-reset', 'CmdOrCtrl+0'),
        { type: 'separator' },
        ...(on.devTools ? [{ role: 'toggleDevTools' as const }] : []),
        { role: 'togglefullscreen' },
      ],
    },
    mac ? { role: 'windowMenu' } : { label: 'Window', submenu: [{ role: 'minimize' }] },
  ];
}

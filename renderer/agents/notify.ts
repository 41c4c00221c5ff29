/**
 * Desktop notifications in a browser window (the Notification API). Permission is
 * asked only from a person's click ("Enable desktop notifications"), never on load.
 * In Electron the shell shows native notifications itself (main/electron/main.ts),
 * so this does nothing there.
 */
import type { Events } from '../../preload/contract.ts';
import { focusPane, type CommandContext } from '../commands.ts';
import { agentsUi, type Permission } from './ui.ts';

export type { Permission };

export function notificationPermission(): Permission {
  return typeof Notification === 'undefined' ? 'unsupported' : Notification.permission;
}

/** Ask for permission; call only from a click. */
export async function enableDesktopNotifications(): Promise<Permission> {
  if (typeof Notification === 'undefined') return 'unsupported';
  let p: Permission;
  try {
    p = await Notification.requestPermission();
  } catch {
    p = Notification.permission;
  }
  agentsUi.setState({ permission: p });
  return p;
}

/** Show a 'notify' event on the desktop; a click brings the window and the pane forward. */
export function desktopNotify(ctx: CommandContext, n: Events['notify']): void {
  if (ctx.store.getState().shell === 'electron' || notificationPermission() !== 'granted') return;
  try {
    const note = new Notification(n.title, { body: n.body, ...(n.paneId ? { tag: `td-${n.paneId}` } : {}) });
    note.onclick = () => {
      window.focus();
      if (n.paneId) focusPane(ctx, n.paneId, true);
      note.close();
    };
  } catch {
    // Some browsers allow notifications only from a service worker; the in-window notice remains.
  }
}

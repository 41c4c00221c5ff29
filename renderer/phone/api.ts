/**
 * The phone's side of the device contract (docs/spec/devices.md): fetches to /api with the
 * device's cookie (sent by the browser; never read here: HttpOnly), and the device socket
 * on which the inbox and the agents list arrive as they change.
 */
import type { AgentRow, InboxCard } from '../../common/device-contract.ts';
import type { Shot } from './Screen.tsx';

export type { AgentRow, InboxCard };

export type Answer = { ok: true } | { ok: false; error: string };

async function post(path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body), credentials: 'same-origin' });
  let json: Record<string, unknown> = {};
  try {
    json = (await res.json()) as Record<string, unknown>;
  } catch {
    json = { ok: false, error: `the door answered ${res.status}` };
  }
  return { status: res.status, body: json };
}

/** The device's name and whether it may type, or why it is not paired (or was revoked). */
export async function whoAmI(): Promise<{ name: string; canType: boolean } | { unpaired: string }> {
  const res = await fetch('/api/me', { credentials: 'same-origin' });
  const body = (await res.json().catch(() => ({}))) as { name?: string; canType?: boolean; error?: string };
  return res.ok && body.name ? { name: body.name, canType: body.canType === true } : { unpaired: body.error ?? 'this device is not paired' };
}

/** Text, or one key of the bar, into an agent's terminal (for a device allowed to type). */
export async function typeInto(paneId: string, what: { text: string } | { key: string }): Promise<Answer> {
  const r = await post('/api/type', { paneId, ...what });
  return r.body.ok === true ? { ok: true } : { ok: false, error: String(r.body.error ?? `the door answered ${r.status}`) };
}

export async function pair(given: { code?: string; secret?: string }, name: string): Promise<{ ok: true; name: string } | { ok: false; error: string }> {
  const r = await post('/api/pair', { ...given, name });
  return r.body.ok === true ? { ok: true, name: String(r.body.name) } : { ok: false, error: String(r.body.error ?? `the door answered ${r.status}`) };
}

export async function act(card: InboxCard, action: string, target: string | undefined, comment: string): Promise<Answer> {
  const r = await post('/api/act', { paneId: card.paneId, surfaceId: card.surfaceId, action, ...(target !== undefined ? { target } : {}), ...(comment.trim() ? { comment } : {}), revision: card.revision });
  return r.body.ok === true ? { ok: true } : { ok: false, error: String(r.body.error ?? `the door answered ${r.status}`) };
}

export interface SocketHandlers {
  inbox(cards: InboxCard[]): void;
  agents(agents: AgentRow[]): void;
  /** Open (true) or gone (false: it reconnects by itself, unless revoked). */
  live(open: boolean): void;
  revoked(reason: string): void;
  /** A watched agent's screen (its snapshot for xterm), or why it cannot be shown. */
  screen(paneId: string, shot: Shot | undefined, error?: string): void;
}

export interface DeviceSocket {
  close(): void;
  /** Watch this agent pane's screen (null: none); asked again after a reconnect. */
  watch(paneId: string | null): void;
}

/** The device socket, reconnecting after a drop (1, 2, 4 … 15 s) until it is revoked. */
export function connect(h: SocketHandlers): DeviceSocket {
  let ws: WebSocket | undefined;
  let watched: string | null = null;
  const sendWatch = (): void => {
    if (ws?.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ t: 'watch', paneId: watched }));
  };
  let stopped = false;
  let delay = 1000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const open = (): void => {
    ws = new WebSocket(`wss://${location.host}/ws`);
    ws.onopen = () => {
      delay = 1000;
      h.live(true);
      if (watched) sendWatch();
    };
    ws.onmessage = (e) => {
      let m: { t?: string; cards?: InboxCard[]; agents?: AgentRow[]; paneId?: string; data?: string; cols?: number; rows?: number; error?: string };
      try {
        m = JSON.parse(String(e.data));
      } catch {
        return;
      }
      if (m.t === 'inbox' && m.cards) h.inbox(m.cards);
      if (m.t === 'agents' && m.agents) h.agents(m.agents);
      if (m.t === 'screen' && m.paneId) h.screen(m.paneId, typeof m.data === 'string' && m.cols && m.rows ? { data: m.data, cols: m.cols, rows: m.rows } : undefined, m.error);
    };
    ws.onclose = (e) => {
      h.live(false);
      if (e.code === 4401) {
        stopped = true;
        return h.revoked(e.reason || 'this device was revoked: pair it again');
      }
      if (stopped) return;
      timer = setTimeout(open, delay);
      delay = Math.min(delay * 2, 15_000);
    };
  };
  open();
  return {
    close: () => {
      stopped = true;
      clearTimeout(timer);
      ws?.close();
    },
    watch: (paneId) => {
      watched = paneId;
      sendWatch();
    },
  };
}

/** Whether this browser can take push notifications here (a trusted certificate, a service worker, the Push API). */
export function pushPossible(): boolean {
  return 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window && window.isSecureContext;
}

/** Ask for notifications and subscribe this device with the service's VAPID key; the sentence says why not. */
export async function subscribePush(): Promise<Answer> {
  if ((await Notification.requestPermission()) !== 'granted') return { ok: false, error: 'notifications are blocked for this page: allow them in the browser\'s settings' };
  const reg = await navigator.serviceWorker.ready;
  const key = (await (await fetch('/api/push/key', { credentials: 'same-origin' })).json()) as { publicKey: string };
  const raw = atob(key.publicKey.replace(/-/g, '+').replace(/_/g, '/'));
  const sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: Uint8Array.from(raw, (c) => c.charCodeAt(0)) });
  const r = await post('/api/push/subscribe', sub.toJSON());
  return r.body.ok === true ? { ok: true } : { ok: false, error: String(r.body.error ?? `the door answered ${r.status}`) };
}

export interface NotifySettings {
  needsYou: boolean;
  done: boolean;
  failed: boolean;
  quiet: { from: string; to: string } | null;
}

/** What this device is notified of; with a change, the change saved first. */
export async function notifySettings(change?: Partial<NotifySettings>): Promise<{ ok: true; notify: NotifySettings } | { ok: false; error: string }> {
  if (change) {
    const r = await post('/api/notify', change);
    return r.body.ok === true ? { ok: true, notify: r.body.notify as NotifySettings } : { ok: false, error: String(r.body.error ?? `the door answered ${r.status}`) };
  }
  const res = await fetch('/api/notify', { credentials: 'same-origin' });
  const body = (await res.json()) as { ok?: boolean; notify?: NotifySettings; error?: string };
  return body.ok && body.notify ? { ok: true, notify: body.notify } : { ok: false, error: body.error ?? `the door answered ${res.status}` };
}

/**
 * The page's first script, in a browser window on serve (not Electron's, which has
 * `window.td` from its preload): it opens serve's WebSocket and says `app.hello` as soon as
 * the HTML is parsed, while the main bundle still downloads and runs, and keeps every frame
 * that comes, in order. td-client adopts the socket (`createWsClient({ early })`): it takes
 * the kept frames as if they had just come, and a request sent here (the hello) is the
 * answer to the window's own first `invoke` of it. So the socket's handshake and the hello's
 * round trip overlap the script instead of following it (docs/spec/performance.md).
 *
 * It imports nothing, so it stays a small file of its own (an entry in vite.config.ts,
 * listed first in the built index.html).
 */

/** A request sent on the early socket, answered among its frames. */
export interface EarlyRequest {
  id: number;
  name: string;
  req: unknown;
}

export interface EarlySocket {
  readonly socket: WebSocket;
  /** Requests sent on it, with ids from 1. */
  readonly requests: readonly EarlyRequest[];
  /** Stop keeping frames and hand over those kept so far, in the order they came. */
  release(): Array<string | ArrayBuffer>;
}

/** serve's window socket on the page's own origin, asking for pane output as binary frames. */
export function defaultWsUrl(loc: { protocol: string; host: string } = globalThis.location): string {
  return `${loc.protocol === 'https:' ? 'wss' : 'ws'}://${loc.host}/ws?output=binary`;
}

/** Open the socket and say `app.hello` once it is open, keeping every frame until released. */
export function openEarly(url: string, WS: typeof WebSocket = WebSocket): EarlySocket {
  const socket = new WS(url);
  socket.binaryType = 'arraybuffer';
  const kept: Array<string | ArrayBuffer> = [];
  const requests: EarlyRequest[] = [];
  let released = false;
  const onOpen = (): void => {
    performance.mark('td:open');
    const hello: EarlyRequest = { id: 1, name: 'app.hello', req: {} };
    try {
      socket.send(JSON.stringify({ t: 'req', ...hello }));
      requests.push(hello);
    } catch {
      // closing already: td-client connects again and says hello itself
    }
  };
  const onMessage = (ev: MessageEvent): void => {
    const data = ev.data as string | ArrayBuffer;
    // The core's liveness check is answered here, so a slow bundle never looks like a frozen tab.
    if (data === '{"t":"ping"}') {
      try {
        socket.send('{"t":"pong"}');
      } catch {
        // closing: the same
      }
      return;
    }
    kept.push(data);
  };
  socket.addEventListener('open', onOpen);
  socket.addEventListener('message', onMessage);
  return {
    socket,
    requests,
    release() {
      if (released) return [];
      released = true;
      socket.removeEventListener('open', onOpen);
      socket.removeEventListener('message', onMessage);
      return kept.splice(0);
    },
  };
}

/**
 * What a key typed on the window's first paint (renderer/first-paint/: the panes drawn into
 * index.html, before the terminal exists) sends to the focused pane, as xterm would send it
 * (`appCursor`: the program asked for application cursor keys, as vim and less do);
 * undefined for a key left to the browser and the app (its shortcuts: Ctrl+Shift, Alt, Meta).
 * Pure.
 */
export function typedInput(e: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'altKey' | 'metaKey' | 'shiftKey' | 'isComposing'>, appCursor = false): string | undefined {
  if (e.isComposing || e.metaKey || e.altKey) return undefined;
  if (e.ctrlKey) return !e.shiftKey && /^[a-z]$/i.test(e.key) ? String.fromCharCode(e.key.toLowerCase().charCodeAt(0) - 96) : undefined;
  if (e.key === 'Tab' && e.shiftKey) return '\x1b[Z';
  const arrow: Record<string, string> = { ArrowUp: 'A', ArrowDown: 'B', ArrowRight: 'C', ArrowLeft: 'D' };
  if (Object.hasOwn(arrow, e.key)) return `${appCursor ? '\x1bO' : '\x1b['}${arrow[e.key]}`;
  const named: Record<string, string> = { Enter: '\r', Backspace: '\x7f', Tab: '\t', Escape: '\x1b', Home: '\x1b[H', End: '\x1b[F', Delete: '\x1b[3~' };
  if (Object.hasOwn(named, e.key)) return named[e.key];
  return [...e.key].length === 1 && e.key >= ' ' ? e.key : undefined;
}

/** Keys typed on the first paint, until the window takes them (takeTyped). */
let typed: string[] | undefined;

/** Keep what is typed while the first paint shows, for the focused pane (the window sends it once its terminal is there). */
export function keepTyped(doc: Document): void {
  if (typed) return;
  typed = [];
  const kept = typed;
  doc.defaultView?.addEventListener('keydown', function onKey(e: KeyboardEvent) {
    if (typed !== kept) return doc.defaultView?.removeEventListener('keydown', onKey);
    // Once anything can take keys itself (the terminal, a field), they are its own.
    const t = e.target as HTMLElement | null;
    if (!doc.getElementById('td-first-paint') || (t && (t.tagName === 'TEXTAREA' || t.tagName === 'INPUT' || t.isContentEditable))) return;
    const data = typedInput(e, !!doc.querySelector('#td-first-paint [data-focused="true"][data-app-cursor="true"]'));
    if (data === undefined) return;
    e.preventDefault();
    kept.push(data);
  });
}

/** What was typed on the first paint, once; nothing is kept after. */
export function takeTyped(): string {
  const text = (typed ?? []).join('');
  typed = [];
  return text;
}

performance.mark('td:early');
let early: EarlySocket | undefined =
  typeof window !== 'undefined' && !(window as Window & { td?: unknown }).td && typeof WebSocket === 'function'
    ? openEarly(defaultWsUrl())
    : undefined;

if (typeof document !== 'undefined') keepTyped(document);

/** The early socket, once: the main bundle's td-client adopts it (undefined in Electron, or when taken). */
export function takeEarly(): EarlySocket | undefined {
  const e = early;
  early = undefined;
  return e;
}

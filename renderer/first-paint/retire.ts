/**
 * Takes the window's first paint away (markup.ts; the door put it into index.html) as the
 * window it stands for is drawn: each pane's part in the frame its terminal has drawn its
 * first snapshot (so no pane ever shows empty in between, and none hides a live terminal
 * while another draws), the title bar's once the hello is answered, and the whole of it once
 * every pane of the layout has drawn. It goes at once when the window has nothing of the
 * sort to draw (no panes, an error, a pane that ended), or was drawn in another theme than
 * the window shows once its hello has its settings (the door went by the browser's hint, the
 * page by its media query), and, whatever happens, after RETIRE_AFTER_MS. Until a pane's part
 * goes it is live (live.ts: keys typed on it go to its pane at once, its rows follow the pane);
 * the keys it could not send yet reach the focused pane (Typed).
 *
 * The keyboard focus the window asks for meanwhile (the store's focusRequest: the hello's focused
 * pane, a click on another pane's part) is given here once it can be (giveAskedFocus).
 */
import { leafIds } from '../panes/layout.ts';
import { resolvedTheme, type WindowStore } from '../store/store.ts';
import type { TerminalRegistry } from '../terminal/registry.ts';
import { FIRST_PAINT_ID } from '../../common/first-paint.ts';

/** The latest the first paint stays, drawn or not (a pane whose terminal never draws must not hide the window). */
export const RETIRE_AFTER_MS = 3000;

/**
 * What was typed on the first paint and could not go at once (early.ts keeps it: its socket was not open yet) goes to the focused pane, in order,
 * before anything its terminal sends: once that terminal has keyboard focus, or when the
 * first paint goes (once the hello has said which pane that is).
 */
export interface Typed {
  take(): string;
  send(paneId: string, data: string): void;
}

/** Whether the window's first paint is there and shows `paneId`'s part (not drawn over by its terminal yet). */
export function firstPaintShows(doc: Document, paneId: string): boolean {
  const el = doc.getElementById(FIRST_PAINT_ID);
  if (!el) return false;
  for (const part of el.querySelectorAll<HTMLElement>('[data-first-paint-pane]')) {
    if (part.dataset.firstPaintPane === paneId) return !part.classList.contains('first-paint-gone');
  }
  return false;
}

export function retireFirstPaint(doc: Document, store: WindowStore, terminals: TerminalRegistry, typed?: Typed, afterMs = RETIRE_AFTER_MS): void {
  const el = doc.getElementById(FIRST_PAINT_ID);
  if (!el) return;
  const stops: Array<() => void> = [];
  let handed = false;
  const handOver = (): void => {
    if (handed || !typed) return;
    if (!store.getState().ready) {
      // The window does not know its panes yet: the keys wait for its hello (they were the person's, and are not lost).
      const stop = store.subscribe((s) => {
        if (!s.ready) return;
        stop();
        handOver();
      });
      return;
    }
    handed = true;
    const text = typed.take();
    const s = store.getState();
    const paneId = s.focused ?? leafIds(s.layout)[0];
    if (text && paneId && s.panes[paneId] && !s.panes[paneId]!.ended) typed.send(paneId, text);
  };
  const onFocus = (e: FocusEvent): void => {
    if ((e.target as Element | null)?.closest?.('.terminal-host')) handOver();
  };
  // Capture: xterm's own focus handlers (and any key after them) come after this.
  doc.addEventListener('focusin', onFocus, true);
  stops.push(() => doc.removeEventListener('focusin', onFocus, true));
  let gone = false;
  const asked = giveAskedFocus(doc, store, terminals, () => gone);
  const done = (): void => {
    if (gone) return;
    gone = true;
    for (const stop of stops.splice(0)) stop();
    el.remove();
    performance.mark('td:first-paint-retired');
    handOver();
    asked.firstPaintGone();
  };
  const hide = (part: Element | null | undefined): void => part?.classList.add('first-paint-gone');
  const check = (): void => {
    const s = store.getState();
    if (s.error && !s.ready) return done();
    if (!s.ready) return;
    if (el.dataset.theme !== resolvedTheme(s)) return done();
    const ids = leafIds(s.layout);
    if (ids.length === 0 || ids.some((id) => s.panes[id]?.ended) || terminals.allDrawn(ids)) return done();
    // The real title bar has its hello's words now; each pane drawn shows itself.
    hide(el.querySelector('.titlebar'));
    for (const part of el.querySelectorAll<HTMLElement>('[data-first-paint-pane]')) {
      if (terminals.allDrawn([part.dataset.firstPaintPane!])) hide(part);
    }
  };
  stops.push(store.subscribe(check), terminals.onDrawn(check));
  const timer = setTimeout(done, afterMs);
  stops.push(() => clearTimeout(timer));
  check();
}

/**
 * The keyboard focus asked for while the window's first paint shows (the store's focusRequest)
 * whose pane's terminal could not take it when asked: not made yet (the first pane's is opened
 * after the commit's frame, the others' once it has drawn), or made and not drawn (its part of the
 * first paint takes the keys until then). It is given to that terminal once it has drawn or once
 * the first paint has gone (RETIRE_AFTER_MS at the latest: a slow snapshot, a failed one),
 * whichever first; when the terminal is made only after that, once it is opened. Only while no
 * one has the keyboard (document.body): a field or a dialog the person is in keeps it. It stops
 * once the first paint has gone and a terminal has the keyboard.
 */
export function giveAskedFocus(doc: Document, store: WindowStore, terminals: TerminalRegistry, firstPaintGone: () => boolean): { firstPaintGone(): void } {
  let stopped = false;
  const stops: Array<() => void> = [];
  const give = (): void => {
    if (stopped) return;
    const active = doc.activeElement;
    const req = store.getState().focusRequest;
    const paneId = req?.paneId;
    const session = paneId ? terminals.get(paneId) : undefined;
    if (session && (!active || active === doc.body) && (firstPaintGone() || terminals.allDrawn([paneId!]))) {
      session.focus();
      store.getState().focusTaken(req!.n);
    }
    if (firstPaintGone() && doc.activeElement?.closest?.('.terminal-host')) {
      stopped = true;
      for (const stop of stops.splice(0)) stop();
    }
  };
  stops.push(terminals.onDrawn(give), terminals.onOpened(give));
  return { firstPaintGone: give };
}

/**
 * One pane: its header, its terminal, its find bar, and its bench beside the
 * terminal when the bench is open.
 */
import { Suspense, useEffect, useLayoutEffect, useRef, type ReactElement } from 'react';
import { focusPane } from '../commands.ts';
import { useWindow, useWindowState } from '../context.ts';
import { resolvedTheme } from '../store/store.ts';
import { TerminalSession } from '../terminal/session.ts';
import { Bench } from '../workbench/lazy.ts';
import { EndedOverlay } from '../service/EndedOverlay.tsx';
import { FindBar } from './FindBar.tsx';
import { PaneHeader } from './PaneHeader.tsx';
import { leafIds } from './layout.ts';
import { FarOverlay } from '../machines/FarPane.tsx';
import { firstPaintShows } from '../first-paint/retire.ts';
import { revealHeaders, useHeaderShown } from './reveal.ts';

/** What a press in a pane leaves the keyboard to. */
const KEEPS_FOCUS = '.pane-bench, input, select, textarea:not(.xterm-helper-textarea), [contenteditable="true"]';

export function PaneView({ paneId }: { paneId: string }): ReactElement {
  const ctx = useWindow();
  const pane = useWindowState((s) => s.panes[paneId]);
  const focused = useWindowState((s) => s.focused === paneId);
  const findOpen = useWindowState((s) => s.findPane === paneId);
  const single = useWindowState((s) => s.layout?.type === 'pane');
  const headerShown = useHeaderShown(paneId, () => {
    const st = ctx.store.getState();
    return (st.focused ?? leafIds(st.layout)[0]) === paneId;
  });

  return (
    <section
      className="pane"
      data-pane-id={paneId}
      data-focused={focused ? 'true' : 'false'}
      data-status={pane?.status ?? 'unknown'}
      aria-label={`Pane ${pane?.title || paneId}`}
      // A press in the pane gives its terminal the keyboard too, so the focus ring shows where keys
      // go; the bench (its fields, its text to select) and the pane's own fields (find) keep theirs.
      onPointerDownCapture={(e) => focusPane(ctx, paneId, !(e.target as HTMLElement).closest(KEEPS_FOCUS))}
    >
      {/* Held in the window's first render (the first paint shows it meanwhile): an empty bar of its height. */}
      {headerShown ? <PaneHeader paneId={paneId} pane={pane} focused={focused} single={single} /> : <div className="pane-header" data-focused={focused ? 'true' : 'false'} aria-hidden="true" />}
      <div className="pane-body">
        <div className="pane-terminal">
          <TerminalView paneId={paneId} />
          {findOpen ? <FindBar paneId={paneId} /> : null}
          {pane?.ended ? <EndedOverlay pane={pane} /> : null}
          <FarOverlay paneId={paneId} />
        </div>
        {pane?.benchOpen ? (
          <aside className="pane-bench" aria-label="Bench">
            {/* The bench's frame while its chunk loads (a first open, a window whose bench was left open). */}
            <Suspense fallback={<div className="td-bench-loading" data-bench-pane={paneId} aria-busy="true"><div className="td-bench-loading-bar">Workbench</div><p>Loading…</p></div>}>
              <Bench paneId={paneId} />
            </Suspense>
          </aside>
        ) : null}
      </div>
    </section>
  );
}

function TerminalView({ paneId }: { paneId: string }): ReactElement {
  const ctx = useWindow();
  const ref = useRef<HTMLDivElement>(null);
  const settings = useWindowState((s) => s.settings);
  const theme = useWindowState(resolvedTheme);
  const focusRequest = useWindowState((s) => (s.focusRequest?.paneId === paneId ? s.focusRequest.n : 0));
  const focusTaken = useWindowState((s) => s.focusRequest?.paneId === paneId && s.focusRequest.taken === true);

  // A layout effect: the terminal is made and measured before the window's first paint, not
  // after it in a task of its own (an attach then paints once, a frame sooner).
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    performance.mark('td:terminal');
    // The window's first pane (the focused one) makes and opens its terminal now, the others once
    // it has drawn (TerminalRegistry.opening): they show the door's first paint until then.
    const st = ctx.store.getState();
    // Where the door's first paint shows the pane (live: it answers keys and draws their echo), its
    // terminal is opened in a task after the commit's frame, so a key typed meanwhile, and its echo,
    // wait for neither (issue 38); else in this task, painted once with the window.
    const first = (st.focused ?? leafIds(st.layout)[0]) === paneId ? (firstPaintShows(document, paneId) ? 'after-frame' : true) : false;
    const cancel = ctx.terminals.opening(paneId, first, (start) => {
      performance.mark('td:terminal-open', { detail: paneId });
      const s = ctx.store.getState();
      const session = ctx.terminals.ensure(paneId, () => new TerminalSession({
        paneId,
        api: ctx.api,
        settings: s.settings,
        theme: resolvedTheme(s),
        rendererMode: ctx.rendererMode,
        openLink: ctx.openLink,
        onFocus: () => focusPane(ctx, paneId, false),
        onError: (m) => ctx.store.getState().notice(m),
        // Its draw fails quietly once the window no longer knows it (gone from its machine: its overlay says so; closed: it leaves the layout).
        known: () => !!ctx.store.getState().panes[paneId],
        snapshots: ctx.terminals.snapshots,
        priority: () => (ctx.store.getState().focused === paneId ? 0 : 1),
        prefetched: () => ctx.terminals.takePrefetched(paneId),
        size: s.panes[paneId],
        onDrawn: () => ctx.terminals.paneDrawn(paneId),
        webglPool: ctx.terminals.webgl,
      }));
      session.attach(el, start);
      // The other panes' headers, held in the first render, come now, a few a task (reveal.ts).
      if (first === 'after-frame') revealHeaders();
      // Opened after the commit, the effect below found no terminal for the keyboard focus its first
      // render asked for: retire.ts (giveAskedFocus) gives it once this terminal has drawn or the first
      // paint has gone, whichever first (until then its part of the first paint takes the keys).
      ctx.terminals.paneOpened(paneId);
      return session;
    });
    return () => {
      cancel();
      ctx.terminals.get(paneId)?.detach(el);
    };
  }, [ctx, paneId]);

  useEffect(() => {
    ctx.terminals.get(paneId)?.applySettings(settings, theme);
  }, [ctx, paneId, settings, theme]);

  useEffect(() => {
    // Only a person's own action moves keyboard focus; nothing that arrives does. Once taken, the
    // request is spent but for this: the terminal made again (a layout that moves the pane, here or
    // from another window) takes the keyboard back when it went with its old element (nowhere now),
    // and leaves it where it is when something has it since (a dialog's field).
    const session = focusRequest ? ctx.terminals.get(paneId) : undefined;
    if (!session) return;
    const active = document.activeElement;
    if (focusTaken && active && active !== document.body && active.isConnected) return;
    session.focus();
    ctx.store.getState().focusTaken(focusRequest);
  }, [ctx, paneId, focusRequest, focusTaken]);

  return <div ref={ref} className="terminal-container" />;
}

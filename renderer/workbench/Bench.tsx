/**
 * A pane's workbench: shelves with their unseen counts, the cards of the shelf on
 * screen (newest first), the keyboard, and the pane's floating document viewer.
 *
 * The protocol's rule, kept here: an arrival never changes the shelf on screen,
 * never selects anything and never moves focus; it is unseen unless its shelf is on
 * screen. Cards that arrive above keep the cards in view where they are.
 */
import { useMachineHellos } from '../machines/ui.ts';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { Shelf, Surface } from '../../preload/contract.ts';
import { SHELVES, actionsOf as kindActions } from '../../preload/tdsp.ts';
import { toggleBench } from '../commands.ts';
import { useWindow, useWindowState } from '../context.ts';
import { DocumentViewer } from '../viewers/DocumentViewer.tsx';
import { Card, type CardHandle } from './Card.tsx';
import { CardBoundary } from './CardBoundary.tsx';
import { ApprovalCard, type ApprovalHandle } from './cards/ApprovalCard.tsx';
import { benchCommand } from './keyboard.ts';
import { benchApi, benchStore, errorText, setBenchApi } from './runtime.ts';
import { approvalIsForPane, onShelf, shelfCounts, stepSelection, stepShelf } from './shelves.ts';
import { loadPane } from './store.ts';
import { useBench } from './useStore.ts';
import { useBenchWidth } from './useBenchWidth.ts';
import { useScrollAnchor } from './useScrollAnchor.ts';
import './bench.css';

const SHELF_HINT: Record<Shelf, string> = {
  Decide: 'Decisions, questions and approvals waiting for you',
  Review: 'Changes to review',
  Replies: 'What the agent said',
  Files: 'Files the agent made',
  Data: 'Tables and diagrams',
  Notes: 'Your own notes; never sent to the agent',
  Unsorted: 'What could not be read as a surface',
};

/** Focus the terminal of the pane this element sits in. */
export function focusTerminalNear(el: HTMLElement | null): boolean {
  for (let n = el?.parentElement ?? null; n; n = n.parentElement) {
    const ta = n.querySelector<HTMLTextAreaElement>('.xterm-helper-textarea');
    if (ta) {
      ta.focus();
      return true;
    }
  }
  return false;
}

/** The pane this bench belongs to (its terminal and header), for focus and placement. */
function paneElement(el: HTMLElement | null): HTMLElement | null {
  return el?.closest<HTMLElement>('[data-pane-id]') ?? el?.parentElement ?? null;
}

function inText(el: EventTarget | null): boolean {
  if (!(el instanceof HTMLElement)) return false;
  return el.isContentEditable || el.tagName === 'TEXTAREA' || (el.tagName === 'INPUT' && !['checkbox', 'radio', 'button'].includes((el as HTMLInputElement).type));
}

export function Bench({ paneId }: { paneId: string }): ReactNode {
  const win = useWindow();
  setBenchApi(win.api);
  const store = benchStore();
  const pane = useBench((s) => s.panes[paneId]);
  const approvalsAll = useBench((s) => s.approvals);
  const unseenApprovals = useBench((s) => s.unseenApprovals);
  const catalogue = useBench((s) => s.catalogue);
  const viewer = useBench((s) => s.viewers[paneId]);
  const root = useRef<HTMLDivElement>(null);
  const list = useRef<HTMLDivElement>(null);
  const cardHandles = useRef(new Map<string, CardHandle>());
  const approvalHandles = useRef(new Map<string, ApprovalHandle>());
  const seenSent = useRef(new Set<string>());
  const [note, setNote] = useState('');
  const [noteError, setNoteError] = useState<string | null>(null);

  // Load on open, and again after a reconnect (events may have been missed meanwhile): the window's, or a far pane's machine's.
  const epoch = useWindowState((s) => s.epoch);
  const farHellos = useMachineHellos(paneId);
  useEffect(() => {
    void loadPane(store, benchApi(), paneId);
    if (epoch > 0) void benchApi().invoke('approval.list', {}).then((l) => store.getState().approvalsListed(l), () => {});
  }, [store, paneId, epoch, farHellos]);

  const onEdgeDown = useBenchWidth(root, () => paneElement(root.current));

  const surfaces = pane?.surfaces ?? [];
  const shelf: Shelf = pane?.shelf ?? 'Decide';
  const selected = pane?.selected ?? null;
  const approvals = useMemo(
    () => Object.values(approvalsAll)
      .filter((a) => approvalIsForPane(a, paneId))
      // Waiting ones first, newest first within each group.
      .sort((a, b) => Number(b.state === 'pending') - Number(a.state === 'pending') || (a.requestedAt < b.requestedAt ? 1 : a.requestedAt > b.requestedAt ? -1 : 0)),
    [approvalsAll, paneId],
  );
  const pendingApprovals = approvals.filter((a) => a.state === 'pending');
  const counts = useMemo(() => shelfCounts(surfaces, pendingApprovals, unseenApprovals), [surfaces, pendingApprovals, unseenApprovals]);
  const cards = useMemo(() => onShelf(surfaces, shelf), [surfaces, shelf]);
  const shownApprovals = shelf === 'Decide' ? approvals : [];
  const ids = useMemo(() => [...shownApprovals.map((a) => `approval:${a.id}`), ...cards.map((s) => s.id)], [shownApprovals, cards]);
  const actionsOf = useCallback(
    (s: Surface) => {
      const k = catalogue?.find((c) => c.kind === s.kind);
      // The core's catalogue when it has come (it may be another build's), else this build's registry.
      const list = k ? [...k.actions] : [...kindActions(s.kind)];
      return list.includes('dismiss') ? list : [...list, 'dismiss'];
    },
    [catalogue],
  );

  // What is on screen is seen: tell the core (once per change of a surface).
  useEffect(() => {
    const fresh = cards.filter((s) => !s.seen && !seenSent.current.has(`${s.id}@${s.updatedAt}`));
    if (fresh.length > 0) {
      for (const s of fresh) seenSent.current.add(`${s.id}@${s.updatedAt}`);
      benchApi().invoke('surface.seen', { paneId, surfaceIds: fresh.map((s) => s.id) }).catch(() => {
        for (const s of fresh) seenSent.current.delete(`${s.id}@${s.updatedAt}`);
      });
    }
    if (shelf === 'Decide') store.getState().approvalsSeen(pendingApprovals.map((a) => a.id));
  }, [cards, shelf, pendingApprovals, paneId, store]);

  // Cards arriving above keep the cards in view still (see useScrollAnchor).
  const scroll = useScrollAnchor(list);

  // A person moved the selection with the keyboard: focus follows, right after the commit.
  const focusNext = useRef<string | null>(null);
  const selectAndFocus = useCallback((id: string | null) => {
    store.getState().select(paneId, id, id ? ids.indexOf(id) : 0);
    focusNext.current = id;
    setFocusTick((n) => n + 1);
  }, [ids, paneId, store]);
  const [focusTick, setFocusTick] = useState(0);
  useLayoutEffect(() => {
    const id = focusNext.current;
    focusNext.current = null;
    if (!id) return;
    const el = list.current?.querySelector<HTMLElement>(`[data-anchor="${CSS.escape(id)}"] > article`);
    el?.focus({ preventScroll: true });
    el?.scrollIntoView({ block: 'nearest' });
  }, [focusTick]);

  const showShelf = useCallback((next: Shelf) => {
    store.getState().showShelf(paneId, next);
    if (list.current) list.current.scrollTop = 0;
    scroll.reset();
  }, [paneId, store, scroll.reset]);

  const onKeyDown = (e: React.KeyboardEvent) => {
    // Keys pressed in the floating viewer (a portal: React bubbles them here) are not the bench's.
    if (!(e.target instanceof Node) || !root.current?.contains(e.target)) return;
    // On the shelf tabs, Left and Right move between shelves (as in any tab list).
    const onTab = (e.target as HTMLElement).getAttribute?.('role') === 'tab' && !e.ctrlKey && !e.altKey && !e.metaKey;
    const cmd = onTab && e.key === 'ArrowLeft' ? 'shelf-prev' : onTab && e.key === 'ArrowRight' ? 'shelf-next' : benchCommand(e.nativeEvent, { inText: inText(e.target) });
    if (!cmd) return;
    // Arrows scroll a table or a diff that has the focus; they do not move between cards.
    if (e.key.startsWith('Arrow') && !e.ctrlKey && (e.target as HTMLElement).closest?.('.tdb-table-wrap, .tdb-diff, .td-md pre')) return;
    const cur = selected && ids.includes(selected) ? selected : null;
    const handle = cur ? cardHandles.current.get(cur) : undefined;
    const ah = cur?.startsWith('approval:') ? approvalHandles.current.get(cur.slice(9)) : undefined;
    switch (cmd) {
      case 'shelf-prev':
      case 'shelf-next': {
        const next = stepShelf(shelf, cmd === 'shelf-next' ? 1 : -1);
        showShelf(next);
        requestAnimationFrame(() => root.current?.querySelector<HTMLElement>(`[data-shelf="${next}"]`)?.focus());
        break;
      }
      case 'card-next':
      case 'card-prev':
        selectAndFocus(stepSelection(ids, cur, cmd === 'card-next' ? 1 : -1, pane?.selectedIndex ?? 0));
        break;
      case 'approve':
        if (ah) ah.approve();
        else handle?.approve();
        break;
      case 'reject':
        if (ah) ah.reject();
        else handle?.reject();
        break;
      case 'comment':
        handle?.comment();
        break;
      case 'open':
        handle?.open();
        break;
      case 'dismiss':
        if (handle && cur) {
          const i = ids.indexOf(cur);
          handle.dismiss();
          const neighbour = ids[i + 1] ?? ids[i - 1] ?? null;
          if (neighbour) selectAndFocus(neighbour);
        }
        break;
      case 'escape':
        focusTerminalNear(root.current);
        break;
      default:
        return;
    }
    e.preventDefault();
    e.stopPropagation();
  };

  // Ctrl+Shift+J from this pane's terminal jumps into its bench (and Escape goes back).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey && e.shiftKey && !e.altKey && !e.metaKey && e.code === 'KeyJ')) return;
      const container = paneElement(root.current);
      const active = document.activeElement;
      if (!container || !active || !container.contains(active) || root.current?.contains(active)) return;
      e.preventDefault();
      e.stopPropagation();
      const first = selected && ids.includes(selected) ? selected : ids[0] ?? null;
      if (first) selectAndFocus(first);
      else root.current?.querySelector<HTMLElement>(`[data-shelf="${shelf}"]`)?.focus();
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [ids, selected, selectAndFocus, shelf]);

  const addNote = () => {
    const text = note.trim();
    if (!text) {
      setNoteError('Write the note first.');
      return;
    }
    setNoteError(null);
    benchApi().invoke('surface.comment', { paneId, text }).then(() => setNote(''), (err) => setNoteError(errorText(err)));
  };

  const totalUnseen = SHELVES.reduce((n, s) => n + counts[s].unseen, 0);

  return (
    <div ref={root} className="td-bench" data-bench-pane={paneId} onKeyDown={onKeyDown}>
      <div className="tdb-edge" role="separator" aria-orientation="vertical" aria-label="Drag to resize the workbench" onPointerDown={onEdgeDown} />
      <div className="tdb-bar">
        <span className="tdb-bar-title">Workbench</span>
        {totalUnseen > 0 && <span className="tdb-count">{totalUnseen}<span className="sr-only"> unseen</span></span>}
        <span className="tdb-spacer" />
        <button type="button" className="tdb-icon" aria-label="Close the workbench" title="Close the workbench (Ctrl+Shift+B)" onClick={() => {
          focusTerminalNear(root.current);
          void toggleBench(win, paneId);
        }}>
          ×
        </button>
      </div>
      <div className="tdb-shelves" role="tablist" aria-label="Shelves">
        {SHELVES.map((s) => {
          const c = counts[s];
          return (
            <button
              key={s}
              type="button"
              role="tab"
              data-shelf={s}
              aria-selected={s === shelf}
              tabIndex={s === shelf ? 0 : -1}
              className={`tdb-shelf${s === shelf ? ' is-current' : ''}${c.total === 0 ? ' is-empty' : ''}`}
              title={`${SHELF_HINT[s]} ([ and ] move between shelves)`}
              onClick={() => showShelf(s)}
            >
              {/* Named by what it shows, said in full: "Decide 3 unseen, 5 in all", "Notes, empty". */}
              {s}{' '}
              {c.unseen > 0 ? <span className="tdb-count" data-unseen={c.unseen}>{c.unseen}</span> : c.total > 0 ? <span className="tdb-total">{c.total}</span> : null}
              <span className="sr-only">{c.unseen > 0 ? ` unseen, ${c.total} in all` : c.total > 0 ? ' in all' : ', empty'}</span>
            </button>
          );
        })}
      </div>
      <div className="tdb-list-area">
        {scroll.newAbove > 0 && (
          <button type="button" className="tdb-new-above" aria-label={`${scroll.newAbove} new above: scroll to the top`} onClick={() => list.current?.scrollTo({ top: 0, behavior: 'smooth' })}>
            ↑ {scroll.newAbove} new
          </button>
        )}
        <div ref={list} className="tdb-list" role="tabpanel" aria-label={`${shelf} shelf`} onScroll={scroll.onScroll}>
          {pane?.error && <p className="tdb-error" role="alert">{pane.error}</p>}
          {shelf === 'Notes' && (
            <div className="tdb-note-new">
              <textarea
                rows={2}
                value={note}
                aria-label="New note"
                placeholder="A note for yourself — never sent to the agent. Enter keeps it."
                onChange={(e) => setNote(e.target.value)}
                onKeyDown={(e) => {
                  if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
                    e.preventDefault();
                    e.stopPropagation();
                    addNote();
                  } else if (e.key === 'Escape') {
                    e.preventDefault();
                    e.stopPropagation();
                    focusTerminalNear(root.current);
                  }
                }}
              />
              <button type="button" className="tdb-btn" aria-label="Keep note" onClick={addNote}>Keep note</button>
              {noteError && <p className="tdb-error" role="alert">{noteError}</p>}
            </div>
          )}
          {shownApprovals.map((a) => (
            <div key={`approval:${a.id}`} data-anchor={`approval:${a.id}`} className="tdb-slot">
              <ApprovalCard
                approval={a}
                selected={selected === `approval:${a.id}`}
                onSelect={() => store.getState().select(paneId, `approval:${a.id}`, ids.indexOf(`approval:${a.id}`))}
                onHide={() => store.getState().hideApproval(a.id)}
                handleRef={(h) => {
                  if (h) approvalHandles.current.set(a.id, h);
                  else approvalHandles.current.delete(a.id);
                }}
              />
            </div>
          ))}
          {cards.map((s) => (
            <div key={s.id} data-anchor={s.id} data-order={s.order} className="tdb-slot">
              <CardBoundary version={s.updatedAt} title={s.title}>
                <Card
                  paneId={paneId}
                  surface={s}
                  actions={actionsOf(s)}
                  selected={selected === s.id}
                  onSelect={() => { if (selected !== s.id) store.getState().select(paneId, s.id, ids.indexOf(s.id)); }}
                  handleRef={(h: CardHandle | null) => {
                    if (h) cardHandles.current.set(s.id, h);
                    else cardHandles.current.delete(s.id);
                  }}
                />
              </CardBoundary>
            </div>
          ))}
          {pane?.loaded && ids.length === 0 && (
            <p className="tdb-empty">{shelf === 'Notes' ? 'No notes yet.' : `Nothing on ${shelf}.`}<br /><span>{SHELF_HINT[shelf]}</span></p>
          )}
          {!pane?.loaded && <p className="tdb-empty">Loading…</p>}
        </div>
      </div>
      {viewer && <DocumentViewer viewer={viewer} anchor={paneElement(root.current)} onClose={() => {
        store.getState().closeViewer(paneId);
        focusTerminalNear(root.current);
      }} />}
    </div>
  );
}

export default Bench;

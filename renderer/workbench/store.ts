/**
 * The benches' state: each pane's surfaces, the shelf on screen, the selected card,
 * pending approvals and the open document viewer. Fed by 'surface.list',
 * 'surface.changed', 'approval.list' and 'approval.changed'; changed only through the
 * named actions below. An arrival changes neither the shelf on screen nor the
 * selection; that is the protocol's rule and this store's one promise.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { PaneHistory } from '../viewers/HistoryView.tsx';
import type { ActionRecord, ApprovalRequest, ArtifactView, CatalogueKind, SearchTranscript, Shelf, Surface, TdApi } from '../../preload/contract.ts';
import { applySurfaceChange, approvalIsForPane, initialShelf, shelfCounts } from './shelves.ts';

export interface PaneBench {
  loaded: boolean;
  surfaces: Surface[];
  /** The shelf on screen; null until the first list arrives. */
  shelf: Shelf | null;
  selected: string | null;
  /** Where the selected card was in the list, so its neighbour takes over when it goes. */
  selectedIndex: number;
  error: string | null;
}

export interface OpenViewer {
  paneId: string;
  surfaceId: string;
  title: string;
  view: ArtifactView;
  /** A diagram shown large instead of an artifact's file. */
  diagram?: { format: string; source: string };
  /** An agent's transcript (a search hit's), opened at its entry, instead of an artifact's file. */
  transcript?: SearchTranscript;
  /** A pane's output kept by the search index, at a hit's line, instead of an artifact's file. */
  history?: PaneHistory;
}

export interface BenchState {
  panes: Record<string, PaneBench>;
  /** Every approval this window has heard of (pending from the list, and any from events). */
  approvals: Record<string, ApprovalRequest>;
  /** Approvals that arrived while the Decide shelf of their pane was not on screen. */
  unseenApprovals: Set<string>;
  catalogue: CatalogueKind[] | null;
  viewers: Record<string, OpenViewer | undefined>;
}

export interface BenchActions {
  listed(paneId: string, surfaces: Surface[]): void;
  listFailed(paneId: string, message: string): void;
  surfaceChanged(paneId: string, change: { surface?: Surface; removedId?: string }): void;
  approvalsListed(list: ApprovalRequest[]): void;
  approvalChanged(a: ApprovalRequest): void;
  catalogueLoaded(c: CatalogueKind[]): void;
  /** A person chose a shelf. */
  showShelf(paneId: string, shelf: Shelf): void;
  /** A person selected a card (null: none). */
  select(paneId: string, id: string | null, index?: number): void;
  /** An action went through: the card shows it at once, before the core's event. */
  recorded(paneId: string, surfaceId: string, record: ActionRecord): void;
  approvalsSeen(ids: string[]): void;
  /** A person put an answered approval away. */
  hideApproval(id: string): void;
  openViewer(v: OpenViewer): void;
  closeViewer(paneId: string): void;
  forget(paneId: string): void;
}

export type BenchStore = StoreApi<BenchState & BenchActions>;

const EMPTY: PaneBench = { loaded: false, surfaces: [], shelf: null, selected: null, selectedIndex: 0, error: null };

export function createBenchStore(): BenchStore {
  return createStore<BenchState & BenchActions>()((set, get) => {
    const pane = (id: string): PaneBench => get().panes[id] ?? EMPTY;
    const put = (id: string, patch: Partial<PaneBench>) =>
      set({ panes: { ...get().panes, [id]: { ...pane(id), ...patch } } });
    return {
      panes: {},
      approvals: {},
      unseenApprovals: new Set(),
      catalogue: null,
      viewers: {},

      listed(paneId, surfaces) {
        const p = pane(paneId);
        const approvals = Object.values(get().approvals).filter((a) => a.state === 'pending' && approvalIsForPane(a, paneId));
        const shelf = p.shelf ?? initialShelf(shelfCounts(surfaces, approvals, get().unseenApprovals));
        put(paneId, { loaded: true, surfaces, shelf, error: null });
      },
      listFailed(paneId, message) {
        put(paneId, { loaded: true, error: message });
      },
      surfaceChanged(paneId, change) {
        const p = pane(paneId);
        if (!p.loaded) return; // the list, when it comes, has it
        put(paneId, { surfaces: applySurfaceChange(p.surfaces, change) });
      },
      approvalsListed(list) {
        const approvals = { ...get().approvals };
        for (const a of list) if (a.state === 'pending' || approvals[a.id]) approvals[a.id] = a;
        set({ approvals });
      },
      approvalChanged(a) {
        const known = get().approvals[a.id];
        const unseen = new Set(get().unseenApprovals);
        if (!known && a.state === 'pending') {
          // Unseen unless the Decide shelf of a pane it belongs to is on screen.
          const onScreen = Object.entries(get().panes).some(([id, p]) => p.shelf === 'Decide' && approvalIsForPane(a, id));
          if (!onScreen) unseen.add(a.id);
        }
        if (a.state !== 'pending') unseen.delete(a.id);
        set({ approvals: { ...get().approvals, [a.id]: a }, unseenApprovals: unseen });
      },
      catalogueLoaded(catalogue) {
        set({ catalogue });
      },
      showShelf(paneId, shelf) {
        if (pane(paneId).shelf === shelf) return;
        put(paneId, { shelf, selected: null, selectedIndex: 0 });
      },
      select(paneId, id, index) {
        put(paneId, { selected: id, selectedIndex: index ?? pane(paneId).selectedIndex });
      },
      recorded(paneId, surfaceId, record) {
        const p = pane(paneId);
        const surfaces = p.surfaces.map((s) => {
          if (s.id !== surfaceId) return s;
          const dup = s.acted.some((r) => r.at === record.at && r.action === record.action && r.target === record.target);
          return dup ? s : { ...s, acted: [...s.acted, record] };
        });
        put(paneId, { surfaces });
      },
      hideApproval(id) {
        const a = get().approvals[id];
        if (!a || a.state === 'pending') return;
        const { [id]: _gone, ...approvals } = get().approvals;
        set({ approvals });
      },
      approvalsSeen(ids) {
        if (!ids.some((id) => get().unseenApprovals.has(id))) return;
        const unseen = new Set(get().unseenApprovals);
        for (const id of ids) unseen.delete(id);
        set({ unseenApprovals: unseen });
      },
      openViewer(v) {
        set({ viewers: { ...get().viewers, [v.paneId]: v } });
      },
      closeViewer(paneId) {
        set({ viewers: { ...get().viewers, [paneId]: undefined } });
      },
      forget(paneId) {
        const { [paneId]: _gone, ...panes } = get().panes;
        set({ panes });
      },
    };
  });
}

/**
 * Wire a store to the core: events for every pane, approvals and the catalogue.
 * Returns a function that unhooks it.
 */
export function connectBenchStore(store: BenchStore, api: TdApi): () => void {
  const offs = [
    api.on('surface.changed', (e) => store.getState().surfaceChanged(e.paneId, e)),
    api.on('approval.changed', (a) => store.getState().approvalChanged(a)),
  ];
  api.invoke('approval.list', {}).then((l) => store.getState().approvalsListed(l), () => {});
  api.invoke('surface.catalogue', {}).then((c) => store.getState().catalogueLoaded(c), () => {});
  return () => offs.forEach((off) => off());
}

/** Load (or reload) one pane's surfaces. */
export async function loadPane(store: BenchStore, api: TdApi, paneId: string): Promise<void> {
  try {
    store.getState().listed(paneId, await api.invoke('surface.list', { paneId }));
  } catch (err) {
    store.getState().listFailed(paneId, `The bench could not load this pane's surfaces (${(err as Error).message}); close and reopen the bench to try again.`);
  }
}

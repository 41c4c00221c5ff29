/**
 * Where a new pane goes (issue 35, item 12): where there is room, not always in half of
 * the focused pane. Every place a pane could go (beside any pane or any split, to its right
 * or below it) is tried; the split that takes the new pane shares its space evenly (each
 * child by how many panes lie side by side in it), and a place is usable only when the new
 * pane and every pane it makes smaller keep at least the minimum size. Of the usable ones
 * the place whose smallest changed pane is nearest a comfortable 80 × 24 terminal wins,
 * the focused pane's own first when they tie. Pure; sizes in pixels (any unit will do).
 */
import type { Layout } from '../../preload/contract.ts';
import { leafRects, type Rect } from '../../common/layout.ts';
import { flatten, leaf, type Direction } from './layout.ts';

export interface Size { width: number; height: number }

/** The smallest usable terminal, in cells. */
export const MIN_CELLS = { cols: 40, rows: 8 } as const;
/** The window's panes area before any window has said how big it is (a 1600 × 900 window less its title bar). */
export const DEFAULT_AREA: Size = { width: 1600, height: 860 };
/** The smallest pane before any window has said: 40 × 8 cells of 13 px type, with the header and padding. */
export const DEFAULT_MIN: Size = { width: 340, height: 180 };

export interface Placement {
  /** The panes area. */
  area: Size;
  /** The smallest a pane may be made (MIN_CELLS and the pane's chrome). */
  min: Size | ((paneId: string) => Size);
  /** The pane the person is in (the focused one, or the one they asked to split). */
  target?: string;
  /** A direction the person chose for `target` (Split right / Split down): kept when there is room for it. */
  direction?: Direction;
  /** Refuse when no place is usable (the default); false: take the best place anyway (no window has said its size). */
  mustFit?: boolean;
}

export type Placed = { ok: true; layout: Layout } | { ok: false; error: string };

type Axis = 'row' | 'column';
type Path = readonly number[];

/** How many panes lie side by side along `axis` in `node` (its share of a split along `axis`). */
export function span(node: Layout, axis: Axis): number {
  if (node.type === 'pane') return 1;
  const spans = node.children.map((c) => span(c, axis));
  return node.direction === axis ? spans.reduce((a, b) => a + b, 0) : Math.max(...spans);
}

/** Every node's path, the root's (empty) first, depth first. */
function paths(node: Layout, at: number[] = [], out: number[][] = []): number[][] {
  out.push(at);
  if (node.type === 'split') node.children.forEach((c, i) => paths(c, [...at, i], out));
  return out;
}

function pathOf(node: Layout, paneId: string, at: number[] = []): number[] | undefined {
  if (node.type === 'pane') return node.paneId === paneId ? at : undefined;
  for (let i = 0; i < node.children.length; i++) {
    const found = pathOf(node.children[i]!, paneId, [...at, i]);
    if (found) return found;
  }
  return undefined;
}

/** The layout with `newId` after the node at `path`, along `axis` (in its parent split when that runs along `axis`). */
function insertAt(node: Layout, path: Path, newId: string, axis: Axis): Layout {
  if (path.length === 0) return { type: 'split', direction: axis, sizes: [0.5, 0.5], children: [node, leaf(newId)] };
  if (node.type !== 'split') return node;
  const [i, ...rest] = path as [number, ...number[]];
  if (rest.length === 0 && node.direction === axis) {
    const children = [...node.children.slice(0, i + 1), leaf(newId), ...node.children.slice(i + 1)];
    return { ...node, sizes: children.map(() => 1 / children.length), children };
  }
  const children = node.children.slice();
  children[i] = insertAt(children[i]!, rest, newId, axis);
  return { ...node, children };
}

/** The split holding `paneId` shares its space by span; everything else as it was. */
function evenAround(node: Layout, paneId: string): Layout {
  if (node.type === 'pane') return node;
  if (node.children.some((c) => c.type === 'pane' && c.paneId === paneId)) {
    const spans = node.children.map((c) => span(c, node.direction));
    const total = spans.reduce((a, b) => a + b, 0);
    return { ...node, sizes: spans.map((s) => s / total) };
  }
  return { ...node, children: node.children.map((c) => evenAround(c, paneId)) };
}

/** The layout with `newId` placed at `path` along `axis`, tidied and evened. */
export function placeAt(layout: Layout, path: Path, newId: string, axis: Axis): Layout {
  return evenAround(flatten(insertAt(layout, path, newId, axis))!, newId);
}

function minOf(p: Placement): (paneId: string) => Size {
  return typeof p.min === 'function' ? p.min : () => p.min as Size;
}

/** How far a rect is from a size (1: just that size; below 1: smaller in some direction). */
function fit(r: Rect, s: Size): number {
  return Math.min(r.w / s.width, r.h / s.height);
}

interface Scored { layout: Layout; usable: boolean; comfort: number; nearTarget: number; order: number }

function score(before: Map<string, Rect>, layout: Layout, newId: string, p: Placement, order: number, nearTarget: number): Scored {
  const min = minOf(p);
  const rects = leafRects(layout, { x: 0, y: 0, w: p.area.width, h: p.area.height });
  let usable = true;
  let comfort = Infinity;
  for (const [id, r] of rects) {
    const was = before.get(id);
    const changed = id === newId || !was || r.w < was.w - 0.5 || r.h < was.h - 0.5;
    if (!changed) continue;
    const m = min(id);
    if (fit(r, m) < 1 - 1e-9) usable = false;
    // A comfortable terminal: 80 × 24 cells, twice the minimum's columns and three times its rows.
    comfort = Math.min(comfort, fit(r, { width: m.width * 2, height: m.height * 3 }));
  }
  return { layout, usable, comfort, nearTarget, order };
}

function better(a: Scored, b: Scored): boolean {
  if (a.usable !== b.usable) return a.usable;
  if (Math.abs(a.comfort - b.comfort) > 1e-6) return a.comfort > b.comfort;
  if (a.nearTarget !== b.nearTarget) return a.nearTarget > b.nearTarget;
  return a.order < b.order;
}

/** The one sentence when no place is usable. */
export function noRoomError(min: Size): string {
  return `there is no room for another pane: each pane keeps at least ${MIN_CELLS.cols} columns and ${MIN_CELLS.rows} rows (${Math.round(min.width)} × ${Math.round(min.height)} px here), so close a pane or make the window bigger`;
}

/**
 * Put `newId` into the layout where there is room (see the file's comment). A `direction`
 * with a `target` is the person's own choice and is kept whenever it leaves every pane
 * usable. Refuses, in one sentence, when no place does (unless `mustFit` is false).
 */
export function placePane(layout: Layout | null, newId: string, p: Placement): Placed {
  if (!layout) return { ok: true, layout: leaf(newId) };
  const full = { x: 0, y: 0, w: p.area.width, h: p.area.height };
  const before = leafRects(layout, full);
  const targetPath = p.target ? pathOf(layout, p.target) : undefined;
  if (targetPath && p.direction) {
    const asked = score(before, placeAt(layout, targetPath, newId, p.direction === 'right' ? 'row' : 'column'), newId, p, 0, 0);
    if (asked.usable) return { ok: true, layout: asked.layout };
  }
  let best: Scored | undefined;
  let order = 0;
  for (const at of paths(layout)) {
    // Nearer the target: the target itself, then its parent split, and so on up; elsewhere 0.
    const nearTarget = targetPath && at.length <= targetPath.length && at.every((v, i) => targetPath[i] === v) ? at.length + 1 : 0;
    for (const axis of ['row', 'column'] as const) {
      const s = score(before, placeAt(layout, at, newId, axis), newId, p, order++, nearTarget);
      if (!best || better(s, best)) best = s;
    }
  }
  if (!best || (!best.usable && p.mustFit !== false)) return { ok: false, error: noRoomError(minOf(p)(newId)) };
  return { ok: true, layout: best.layout };
}

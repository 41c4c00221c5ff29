/**
 * The layout tree as nested flex splits. Dividers drag with pointer events
 * (pointer capture); sizes change locally while dragging and are saved with
 * 'layout.set' on release. Dividers also move with arrow keys when focused.
 */
import { useRef, type KeyboardEvent, type PointerEvent, type ReactElement, type RefObject } from 'react';
import type { Layout } from '../../preload/contract.ts';
import { useWindow } from '../context.ts';
import { dragDivider, normalise, type LayoutPath } from './layout.ts';
import { PaneView } from './PaneView.tsx';

type Split = Extract<Layout, { type: 'split' }>;

/** Smallest share a pane keeps while dragging, in pixels. */
const MIN_PANE_PX = 90;

function childKey(node: Layout): string {
  if (node.type === 'pane') return `p:${node.paneId}`;
  let n: Layout = node;
  while (n.type === 'split') n = n.children[0]!;
  return `s:${n.paneId}`;
}

export function LayoutNode({ node, path }: { node: Layout; path: LayoutPath }): ReactElement {
  if (node.type === 'pane') return <PaneView paneId={node.paneId} />;
  return <SplitView node={node} path={path} />;
}

function SplitView({ node, path }: { node: Split; path: LayoutPath }): ReactElement {
  const ref = useRef<HTMLDivElement>(null);
  const sizes = normalise(node.sizes.length === node.children.length ? node.sizes : node.children.map(() => 1));
  const items: ReactElement[] = [];
  node.children.forEach((child, i) => {
    if (i > 0) {
      items.push(<Divider key={`d:${childKey(child)}`} index={i - 1} node={node} path={path} container={ref} />);
    }
    items.push(
      <div key={childKey(child)} className="split-child" style={{ flex: `${sizes[i]} 1 0px` }}>
        <LayoutNode node={child} path={[...path, i]} />
      </div>,
    );
  });
  return (
    <div ref={ref} className={`split split-${node.direction}`} data-direction={node.direction}>
      {items}
    </div>
  );
}

interface DividerProps {
  index: number;
  node: Split;
  path: LayoutPath;
  container: RefObject<HTMLDivElement | null>;
}

function Divider({ index, node, path, container }: DividerProps): ReactElement {
  const { store, api } = useWindow();
  const drag = useRef<{ start: number; length: number; sizes: number[]; pointerId: number } | null>(null);
  const horizontal = node.direction === 'row';

  const persist = (): void => {
    const layout = store.getState().layout;
    if (!layout) return;
    api.invoke('layout.set', { layout }).catch((err: Error) => store.getState().notice(`Saving the layout failed: ${err.message}`));
  };

  const minFraction = (length: number): number => (length > 0 ? Math.min(0.45, MIN_PANE_PX / length) : 0.05);

  const onPointerDown = (e: PointerEvent<HTMLDivElement>): void => {
    if (e.button !== 0 || !container.current) return;
    e.preventDefault();
    const rect = container.current.getBoundingClientRect();
    e.currentTarget.setPointerCapture(e.pointerId);
    drag.current = {
      start: horizontal ? e.clientX : e.clientY,
      length: horizontal ? rect.width : rect.height,
      sizes: normalise(node.sizes),
      pointerId: e.pointerId,
    };
    store.getState().dragStarted();
  };

  const onPointerMove = (e: PointerEvent<HTMLDivElement>): void => {
    const d = drag.current;
    if (!d || d.pointerId !== e.pointerId || d.length <= 0) return;
    const delta = ((horizontal ? e.clientX : e.clientY) - d.start) / d.length;
    store.getState().resizeSplit(path, dragDivider(d.sizes, index, delta, minFraction(d.length)));
  };

  const end = (e: PointerEvent<HTMLDivElement>): void => {
    const d = drag.current;
    if (!d || d.pointerId !== e.pointerId) return;
    drag.current = null;
    if (e.currentTarget.hasPointerCapture(e.pointerId)) e.currentTarget.releasePointerCapture(e.pointerId);
    store.getState().dragEnded();
    persist();
  };

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>): void => {
    const back = horizontal ? 'ArrowLeft' : 'ArrowUp';
    const fwd = horizontal ? 'ArrowRight' : 'ArrowDown';
    if (e.key !== back && e.key !== fwd) return;
    e.preventDefault();
    const rect = container.current?.getBoundingClientRect();
    const length = rect ? (horizontal ? rect.width : rect.height) : 0;
    const step = e.key === fwd ? 0.02 : -0.02;
    store.getState().resizeSplit(path, dragDivider(node.sizes, index, step, minFraction(length)));
    persist();
  };

  const share = Math.round(normalise(node.sizes)[index]! * 100);
  return (
    <div
      className={`divider divider-${horizontal ? 'vertical' : 'horizontal'}`}
      role="separator"
      aria-orientation={horizontal ? 'vertical' : 'horizontal'}
      aria-label={horizontal ? 'Resize panes left and right' : 'Resize panes above and below'}
      aria-valuenow={share}
      aria-valuemin={0}
      aria-valuemax={100}
      tabIndex={0}
      data-divider-index={index}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={end}
      onPointerCancel={end}
      onKeyDown={onKeyDown}
    />
  );
}

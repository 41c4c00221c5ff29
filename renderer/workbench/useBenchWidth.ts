/**
 * The bench's width: its left edge can be dragged, and the width is remembered. The
 * width is set on the element the bench is mounted in (the pane's bench column).
 */
import { useLayoutEffect, type PointerEvent as ReactPointerEvent, type RefObject } from 'react';
import { dragWidth, savedWidth, saveWidth } from './width.ts';

export function useBenchWidth(root: RefObject<HTMLElement | null>, pane: () => HTMLElement | null): (e: ReactPointerEvent<HTMLElement>) => void {
  useLayoutEffect(() => {
    const w = savedWidth();
    const host = root.current?.parentElement;
    if (w && host) host.style.flex = `0 0 ${w}px`;
  }, [root]);

  return (e) => {
    const host = root.current?.parentElement;
    const paneEl = pane();
    if (!host || !paneEl) return;
    e.preventDefault();
    const start = { x: e.clientX, w: host.getBoundingClientRect().width };
    const edge = e.currentTarget;
    edge.setPointerCapture(e.pointerId);
    const move = (ev: PointerEvent) => {
      host.style.flex = `0 0 ${dragWidth(start.w, start.x, ev.clientX, paneEl.getBoundingClientRect().width)}px`;
    };
    const up = () => {
      edge.removeEventListener('pointermove', move);
      edge.removeEventListener('pointerup', up);
      edge.removeEventListener('pointercancel', up);
      saveWidth(Math.round(host.getBoundingClientRect().width));
    };
    edge.addEventListener('pointermove', move);
    edge.addEventListener('pointerup', up);
    edge.addEventListener('pointercancel', up);
  };
}

/**
 * Keep the cards in view where they are when cards arrive (or grow) above them, and
 * count the cards that arrived above the view (for the "N new above" pill).
 *
 * The anchor is the first card in view and its offset, taken at the last scroll or
 * render. After each render, when the list was not scrolled since, the list is scrolled
 * by however far that card moved. When it was scrolled since (by a person, or by
 * scrollIntoView before the scroll event came), there is nothing to correct, only a new
 * anchor to take. Cards carry `data-anchor` (an id) and `data-order` (arrival order).
 */
import { useCallback, useLayoutEffect, useRef, useState, type RefObject } from 'react';

export interface ScrollAnchor {
  /** Call from the list's onScroll. */
  onScroll(): void;
  /** Cards that arrived above the view since the list was last at its top. */
  newAbove: number;
  /** Forget everything (another shelf is on screen). */
  reset(): void;
}

export function useScrollAnchor(list: RefObject<HTMLElement | null>): ScrollAnchor {
  const anchor = useRef<{ id: string; offset: number; scrollTop: number } | null>(null);
  const topOrder = useRef(0);
  const [newAbove, setNewAbove] = useState(0);

  const capture = useCallback(() => {
    const el = list.current;
    if (!el) return;
    const top = el.getBoundingClientRect().top;
    const orders = [...el.querySelectorAll<HTMLElement>('[data-order]')];
    if (el.scrollTop < 4) {
      topOrder.current = Math.max(topOrder.current, ...orders.map((n) => Number(n.dataset.order)));
      setNewAbove(0);
    } else {
      setNewAbove(orders.filter((n) => Number(n.dataset.order) > topOrder.current && n.getBoundingClientRect().bottom <= top + 1).length);
    }
    let pick: HTMLElement | null = null;
    for (const n of el.querySelectorAll<HTMLElement>('[data-anchor]')) {
      if (n.getBoundingClientRect().bottom > top) {
        pick = n;
        break;
      }
    }
    anchor.current = pick ? { id: pick.dataset.anchor!, offset: pick.getBoundingClientRect().top - top, scrollTop: el.scrollTop } : null;
  }, [list]);

  useLayoutEffect(() => {
    const el = list.current;
    const a = anchor.current;
    if (el && a && el.scrollTop === a.scrollTop) {
      const n = el.querySelector<HTMLElement>(`[data-anchor="${CSS.escape(a.id)}"]`);
      if (n) {
        const delta = n.getBoundingClientRect().top - el.getBoundingClientRect().top - a.offset;
        if (Math.abs(delta) >= 0.5) el.scrollTop += delta;
      }
    }
    capture();
  });

  const reset = useCallback(() => {
    anchor.current = null;
    topOrder.current = 0;
    setNewAbove(0);
  }, []);

  return { onScroll: capture, newAbove, reset };
}

/**
 * Tells the core the window's panes area and the smallest usable pane (`layout.area`,
 * renderer/panes/area.ts) when it first knows them and whenever they change: the window
 * resized, the type's size changed, a pane's chrome changed.
 */
import { useEffect, type RefObject } from 'react';
import { useWindow, useWindowState } from '../context.ts';
import { layoutArea, measureCells } from './area.ts';

const SETTLE_MS = 150;

export function useReportArea(workspace: RefObject<HTMLElement | null>): void {
  const ctx = useWindow();
  const ready = useWindowState((s) => s.ready);
  const fontSize = useWindowState((s) => s.settings.fontSize);
  const fontFamily = useWindowState((s) => s.settings.fontFamily);
  useEffect(() => {
    const el = workspace.current;
    if (!ready || !el) return;
    let sent = '';
    let timer: ReturnType<typeof setTimeout> | undefined;
    const report = (): void => {
      timer = undefined;
      const cells = measureCells(el, (id) => ctx.terminals.get(id)?.term);
      // No terminal drawn yet: look again shortly.
      if (!cells) return void (timer = setTimeout(report, SETTLE_MS));
      const style = getComputedStyle(el);
      const width = el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      const height = el.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
      const area = layoutArea(width, height, cells);
      const key = JSON.stringify(area);
      if (key === sent) return;
      sent = key;
      ctx.api.invoke('layout.area', area).catch(() => { sent = ''; });
    };
    const soon = (): void => {
      clearTimeout(timer);
      timer = setTimeout(report, SETTLE_MS);
    };
    const ro = new ResizeObserver(soon);
    // Its first call comes at once; the report a moment later, once the terminals have their type.
    ro.observe(el);
    return () => {
      ro.disconnect();
      clearTimeout(timer);
    };
  }, [ctx, workspace, ready, fontSize, fontFamily]);
}

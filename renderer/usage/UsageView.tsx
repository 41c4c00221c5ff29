/**
 * The Usage view (title bar, View menu, Ctrl+Shift+U): its dialog and chart.js are a chunk
 * of their own, loaded the first time it opens, so no window's start waits for them.
 */
import { lazy, Suspense, type ReactElement } from 'react';
import { useStore } from 'zustand';
import { usageUi } from './ui.ts';

const UsageDialog = lazy(() => import('./UsageDialog.tsx'));

export function UsageView(): ReactElement | null {
  const open = useStore(usageUi, (s) => s.open);
  return open ? <Suspense fallback={null}><UsageDialog /></Suspense> : null;
}

import { useStore } from 'zustand';
import type { BenchActions, BenchState } from './store.ts';
import { benchStore } from './runtime.ts';

/** Read the bench store with a selector (re-renders when the selected value changes). */
export function useBench<T>(selector: (s: BenchState & BenchActions) => T): T {
  return useStore(benchStore(), selector);
}

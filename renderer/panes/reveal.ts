/**
 * The window's first render in pieces (issue 38, item 4). While the door's first paint shows
 * the panes (it lies over the window, headers and rows drawn), React's first commit makes every
 * pane's frame and its terminal's box, and the header of the window's first pane only: the
 * others' headers (most of a pane's render) are held, an empty bar of the same height in their
 * place, and come after the first pane's terminal has opened, HEADERS_A_TURN panes a task, so
 * a key typed meanwhile, and its echo on the first paint, go between. The other terminals are
 * opened only once every header is in (TerminalRegistry.beforeRest): a pane's part of the first
 * paint goes once its terminal has drawn, and its header is there by then.
 */
import { useState, useSyncExternalStore } from 'react';
import { firstPaintShows } from '../first-paint/retire.ts';

/** Headers shown a task while the first render's held headers come in. */
export const HEADERS_A_TURN = 8;
/** The latest the held headers start to come in (the first pane's terminal never opened: a pane ended, an error). */
export const REVEAL_AFTER_MS = 250;

/** The panes whose header is held; undefined once they have all come (or none was). */
let held: Set<string> | undefined;
/** Whether the held headers have started to come in: a pane made after that is rendered whole. */
let started = false;
const listeners = new Set<() => void>();
let allShown: Promise<void> | undefined;
let resolveAll: (() => void) | undefined;
let fallback: ReturnType<typeof setTimeout> | undefined;

/** Called each time some held headers are shown; returns the unsubscribe. */
export function subscribeHeaders(f: () => void): () => void {
  listeners.add(f);
  return () => listeners.delete(f);
}

/** A task of its own, behind the keys and the frames (scheduler.postTask where there is one). */
function nextTask(go: () => void): void {
  const s = (globalThis as { scheduler?: { postTask?(f: () => void, o: { priority: string }): Promise<unknown> } }).scheduler;
  if (typeof s?.postTask === 'function') void s.postTask(go, { priority: 'user-visible' });
  else setTimeout(go, 0);
}

/**
 * Whether `paneId`'s header is shown: false only in the window's first render while the door's
 * first paint shows the pane and it is not the window's first pane (`first`), until revealHeaders
 * has shown it. A hook (the pane's view re-renders as its header comes).
 */
export function useHeaderShown(paneId: string, first: () => boolean): boolean {
  useState(() => {
    if (typeof document !== 'undefined' && !first() && firstPaintShows(document, paneId)) holdHeader(paneId);
    return 0;
  });
  return useSyncExternalStore(subscribeHeaders, () => !headerHeld(paneId));
}

/** Hold a pane's header (its view's first render), unless the held headers have started to come in; they do at the latest REVEAL_AFTER_MS on. */
export function holdHeader(paneId: string): void {
  if (started) return;
  (held ??= new Set()).add(paneId);
  fallback ??= setTimeout(revealHeaders, REVEAL_AFTER_MS);
}

/** Whether a pane's header is held. */
export function headerHeld(paneId: string): boolean {
  return !!held?.has(paneId);
}

/** Show the held headers, HEADERS_A_TURN panes a task (each a commit of its own); once. */
export function revealHeaders(): void {
  if (started) return;
  started = true;
  clearTimeout(fallback);
  const turn = (): void => {
    if (!held || held.size === 0) return finish();
    let n = 0;
    for (const id of held) {
      held.delete(id);
      if (++n >= HEADERS_A_TURN) break;
    }
    for (const f of [...listeners]) f();
    if (held.size === 0) finish();
    else nextTask(turn);
  };
  nextTask(turn);
}

function finish(): void {
  held = undefined;
  resolveAll?.();
}

/** Resolves once every held header is shown (at once when none is held). */
export function headersShown(): Promise<void> {
  if (!held || held.size === 0) return Promise.resolve();
  allShown ??= new Promise((resolve) => {
    resolveAll = resolve;
  });
  return allShown;
}

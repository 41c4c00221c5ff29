/**
 * Tab and Shift+Tab kept inside a dialog (ModalForm, the settings): past its last stop, the
 * first; before its first, the last; never out to the page, where the browser would leave
 * the page's content for its own (the body has the keyboard then).
 */
import type { KeyboardEvent } from 'react';

/** What Tab stops at: enabled, shown controls; of a group of radios, only the checked one (the browser's own rule). */
const TABBABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

export function tabStops(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(TABBABLE)].filter((el) => {
    if (el.tabIndex < 0 || el.getClientRects().length === 0) return false;
    // What the browser skips though the selector matches it: inside a disabled fieldset or an inert part, or hidden.
    if (el.closest('fieldset[disabled], [inert]') || getComputedStyle(el).visibility === 'hidden') return false;
    if (el instanceof HTMLInputElement && el.type === 'radio' && el.name) {
      const group = [...root.querySelectorAll<HTMLInputElement>(`input[type="radio"][name="${CSS.escape(el.name)}"]:not([disabled])`)];
      return el.checked || (!group.some((r) => r.checked) && group[0] === el);
    }
    return true;
  });
}

/** On a Tab (without Ctrl, Alt or Meta) in `root`: at its last stop (or the root itself), to its first; Shift+Tab at its first, to its last. */
export function tabRound(root: HTMLElement | null, e: KeyboardEvent): void {
  if (!root || e.key !== 'Tab' || e.ctrlKey || e.altKey || e.metaKey) return;
  const stops = tabStops(root);
  const first = stops[0];
  const end = stops[stops.length - 1];
  if (!first || !end) return;
  const at = document.activeElement;
  if (at === root || at === (e.shiftKey ? first : end)) {
    e.preventDefault();
    (e.shiftKey ? end : first).focus();
  }
}

/**
 * A sentence of the core's as a screen shows it on its own (a dialog's or the phone's error
 * line): its first letter a capital, ending in a full stop. The core writes its sentences to go
 * after "…: " in a log or a terminal, lower case and without one.
 */
export function shownSentence(text: string): string {
  const t = text.trim();
  if (!t) return t;
  const s = t.charAt(0).toUpperCase() + t.slice(1);
  return /[.!?…]$/.test(s) ? s : `${s}.`;
}

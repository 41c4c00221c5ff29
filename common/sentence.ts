/**
 * A sentence of the core's as a screen shows it on its own (a dialog's or the phone's error
 * line): its first letter a capital (unless its first word is a name as written), ending in a
 * full stop. The core writes its sentences to go
 * after "…: " in a log or a terminal, lower case and without one.
 */
export function shownSentence(text: string): string {
  const t = text.trim();
  if (!t) return t;
  // A first word that is a name as written (`far-box`, `settings.json`, `TD_TOKEN`, `ssh-add`) keeps its case.
  const first = /^\S*/.exec(t)![0].replace(/[:,;]$/, '');
  const s = /^[a-z']+$/.test(first) ? t.charAt(0).toUpperCase() + t.slice(1) : t;
  return /[.!?…]$/.test(s) ? s : `${s}.`;
}

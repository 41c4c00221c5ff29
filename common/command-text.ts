/** A finished command in words, as the pane header, the gutter and the first paint say it. Pure. */

/** How long a command ran, in words a tooltip can hold: "0.4 s", "12 s", "3 min 5 s", "2 h 4 min". */
export function durationText(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '';
  if (ms < 10_000) return `${(Math.round(ms / 100) / 10).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 ? `${m} min ${s % 60} s` : `${m} min`;
  const h = Math.floor(m / 60);
  return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
}

/** "exit 0 · 1.2 s": a command's status and duration. */
export function commandText(exitCode: number, durationMs: number): string {
  const d = durationText(durationMs);
  return d ? `exit ${exitCode} · ${d}` : `exit ${exitCode}`;
}

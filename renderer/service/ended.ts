/** Words for panes that ended with the service (pure, tested). */
import type { PaneInfo } from '../../preload/contract.ts';

/** "14:02" today, "28 Nov 14:02" another day. */
export function when(iso: string, now = new Date()): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const hm = d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  return d.toDateString() === now.toDateString() ? hm : `${d.toLocaleDateString(undefined, { day: 'numeric', month: 'short' })} ${hm}`;
}

/** One line for an ended pane: "Ended at 14:02: the machine restarted." */
export function endedLine(ended: NonNullable<PaneInfo['ended']>, now = new Date()): string {
  const at = when(ended.at, now);
  const reason = ended.reason.replace(/[.\s]+$/, '');
  return `Ended${at ? ` at ${at}` : ''}: ${reason}.`;
}

/** What resuming runs, as a person would type it (quoted where needed). */
export function argvText(argv: readonly string[]): string {
  return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/** The panes of the layout that ended with the service, and the most common reason among them. */
export function endedSummary(panes: readonly PaneInfo[]): { count: number; reason: string } | undefined {
  const ended = panes.filter((p) => p.ended);
  if (ended.length === 0) return undefined;
  const counts = new Map<string, number>();
  for (const p of ended) counts.set(p.ended!.reason, (counts.get(p.ended!.reason) ?? 0) + 1);
  const reason = [...counts.entries()].sort((a, b) => b[1] - a[1])[0][0];
  return { count: ended.length, reason };
}

/** Compare two versions like 0.10.2 and 0.9.0 by their numbers: negative when a is older. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((x) => Number.parseInt(x, 10));
  const pb = b.split(/[.-]/).map((x) => Number.parseInt(x, 10));
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = Number.isFinite(pa[i]) ? pa[i] : 0;
    const y = Number.isFinite(pb[i]) ? pb[i] : 0;
    if (x !== y) return x - y;
  }
  return 0;
}

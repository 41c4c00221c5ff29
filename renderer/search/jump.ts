/**
 * Enter on a hit: go where it happened. A card (a surface, a decision taken on one) opens
 * its pane's bench on the card's shelf, selected and scrolled to; a line of a pane's output
 * or a command scrolls the pane's terminal to that line and marks it (the terminal's find
 * decorations): of the line's copies in the terminal's history (fetched whole first when the
 * window holds only its last lines), the one as far above the pane's last line as the index
 * numbers it (`search.lines`' `next`), not merely the newest; an ended pane shows its saved screen that way, with
 * its Resume; a line gone from the terminal's history (scrolled past it) is shown from the index,
 * with the lines around it, in the bench's document viewer; an agent's prompt, reply or tool run opens the agent session's transcript in
 * the bench's document viewer at that entry. A pane this window no longer has says so in one notice.
 */
import type { SearchHit } from '../../preload/contract.ts';
import { focusPane, toggleBench } from '../commands.ts';
import type { WindowContext } from '../context.ts';
import { benchStore } from '../workbench/runtime.ts';
import { AGENT_LABELS } from '../agents/labels.ts';
import { headerTitle } from '../../common/header-text.ts';

/** Wait for `f` to give something, a frame at a time, for at most `ms`. */
async function until<T>(f: () => T | undefined, ms = 3000): Promise<T | undefined> {
  const end = performance.now() + ms;
  for (;;) {
    const v = f();
    if (v !== undefined || performance.now() > end) return v;
    await new Promise((r) => requestAnimationFrame(r));
  }
}

export async function jumpTo(ctx: WindowContext, hit: SearchHit): Promise<void> {
  const s = ctx.store.getState();
  const pane = s.panes[hit.paneId];
  if (!pane) {
    s.notice(`That was in pane ${hit.paneId}, which this window no longer has: ${hit.text.slice(0, 120)}`);
    return;
  }
  focusPane(ctx, hit.paneId, true);
  if ((hit.kind === 'surface' || hit.kind === 'decision') && hit.ref) {
    if (!pane.benchOpen) await toggleBench(ctx, hit.paneId);
    const bench = benchStore();
    const surface = await until(() => bench.getState().panes[hit.paneId]?.surfaces.find((x) => x.id === hit.ref));
    if (!surface) {
      s.notice(`The card "${hit.ref}" is no longer on the bench of pane ${hit.paneId}.`);
      return;
    }
    bench.getState().showShelf(hit.paneId, surface.shelf);
    bench.getState().select(hit.paneId, surface.id);
    const el = await until(() => document.querySelector<HTMLElement>(`[data-surface-id="${CSS.escape(surface.id)}"]`) ?? undefined);
    // From its head (its kind and title): centred, a card taller than the shelf showed its middle under the tabs.
    el?.scrollIntoView({ block: 'start' });
    el?.focus({ preventScroll: true });
    return;
  }
  if ((hit.kind === 'prompt' || hit.kind === 'reply' || hit.kind === 'tool') && hit.ref) {
    const r = await ctx.api.invoke('search.transcript', { paneId: hit.paneId, session: hit.session, ref: hit.ref });
    if (!r.ok) {
      s.notice(r.error);
      return;
    }
    if (!pane.benchOpen) await toggleBench(ctx, hit.paneId);
    const agent = r.transcript.agent ?? hit.agent;
    benchStore().getState().openViewer({ paneId: hit.paneId, surfaceId: `transcript:${hit.ref}`, title: `${agent ? `${AGENT_LABELS[agent] ?? agent}'s` : 'The agent\'s'} transcript`, view: { kind: 'markdown', name: '', text: '' }, transcript: r.transcript });
    return;
  }
  // The line in the pane's history, scrolled to and marked: of its copies there, the one as far
  // above the pane's last line as the index says the hit is (`next`: the number the pane's next
  // line gets), not merely the newest.
  const term = await until(() => ctx.terminals.get(hit.paneId));
  if (!term) return;
  const text = hit.kind === 'command' ? hit.text : hit.text.trim();
  const line = hit.line;
  const r = line !== undefined && (hit.kind === 'output' || hit.kind === 'command') ? await ctx.api.invoke('search.lines', { paneId: hit.paneId, line }) : undefined;
  const found = await term.findLine(text, r?.ok && line !== undefined ? Math.max(0, r.next - line) : undefined);
  if (found) return;
  // Gone from the terminal's history (scrolled past it): the index's lines around it, in the bench's viewer.
  if (hit.kind !== 'output' || !r?.ok || line === undefined || !r.lines.some((l) => l.line === line)) {
    s.notice(`The line is no longer in pane ${hit.paneId}'s history: ${hit.text.slice(0, 120)}`);
    return;
  }
  if (!pane.benchOpen) await toggleBench(ctx, hit.paneId);
  benchStore().getState().openViewer({ paneId: hit.paneId, surfaceId: `history:${line}`, title: `Output of ${headerTitle(pane).title}, line ${line + 1}`, view: { kind: 'markdown', name: '', text: '' }, history: { lines: r.lines, line } });
}

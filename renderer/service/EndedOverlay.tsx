/** Over an ended pane's last screen: why it ended, what resuming runs, and Resume. */
import { useState, type ReactElement } from 'react';
import type { PaneInfo } from '../../preload/contract.ts';
import { useWindow } from '../context.ts';
import { argvText, endedLine } from './ended.ts';
import { AGENT_LABELS } from '../agents/labels.ts';

export function EndedOverlay({ pane }: { pane: PaneInfo }): ReactElement | null {
  const ctx = useWindow();
  const [busy, setBusy] = useState(false);
  if (!pane.ended) return null;
  const resume = async (): Promise<void> => {
    setBusy(true);
    try {
      await ctx.api.invoke('pane.resume', { paneId: pane.id });
      ctx.store.getState().focusPane(pane.id, true);
    } catch (err) {
      ctx.store.getState().notice((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const agent = pane.agentCli ? AGENT_LABELS[pane.agentCli.name] : undefined;
  return (
    <div className="ended-overlay" role="group" aria-label="This pane ended" data-testid="ended-overlay">
      <p className="ended-line">{endedLine(pane.ended)}</p>
      <p className="ended-detail">
        {agent && pane.agentCli?.sessionId ? `Resuming picks up ${agent}'s session: ` : 'Resuming runs '}
        <code>{argvText(pane.ended.resumeArgv)}</code> in <code>{pane.cwd}</code>
      </p>
      <button type="button" className="text-button primary" disabled={busy} onClick={() => void resume()}>{busy ? 'Resuming…' : 'Resume'}</button>
    </div>
  );
}

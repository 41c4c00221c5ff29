/**
 * What a far pane shows of its machine (docs/spec/remote.md, "Far panes in the window"):
 * the machine's name in the pane header, framed and dotted in its colour (the text keeps
 * the theme's, for contrast), and "reconnecting…" over the
 * pane's last screen while the machine is not connected (why, when it failed; Retry now).
 */
import type { ReactElement } from 'react';
import { useStore } from 'zustand';
import type { MachineInfo } from '../../preload/contract.ts';
import { splitPaneId } from '../../common/pane-id.ts';
import { CodeText } from '../CodeText.tsx';
import { useWindow, useWindowState } from '../context.ts';
import { closePane } from '../commands.ts';
import { machineStateLabel, machinesUi, retryMachine } from './ui.ts';

/** The machine a pane lives on (undefined for a home pane), as this window knows it. */
export function usePaneMachine(paneId: string): { name: string; info: MachineInfo | undefined } | undefined {
  const name = splitPaneId(paneId).machine;
  const info = useStore(machinesUi, (s) => (name === undefined ? undefined : s.machines.find((m) => m.name === name)));
  return name === undefined ? undefined : { name, info };
}

export function MachineBadge({ paneId }: { paneId: string }): ReactElement | null {
  const m = usePaneMachine(paneId);
  if (!m) return null;
  const colour = m.info?.colour ?? 'var(--text-dim)';
  return (
    <span className="badge pane-machine" data-testid="pane-machine" title={`This pane runs on ${m.name}${m.info?.hostname ? ` (${m.info.hostname})` : ''}`} style={{ borderColor: colour }}>
      <span className="machine-dot" style={{ background: colour }} aria-hidden="true" />
      {m.name}
    </span>
  );
}

export function FarOverlay({ paneId }: { paneId: string }): ReactElement | null {
  const ctx = useWindow();
  const m = usePaneMachine(paneId);
  const known = useWindowState((s) => !!s.panes[paneId]);
  const gone = useStore(machinesUi, (s) => !!s.gone[paneId]);
  if (!m) return null;
  if (m.info?.state === 'connected') {
    // Its machine answered and does not have it (its state was wiped, or it was closed while this layout was away).
    if (!gone || known) return null;
    return (
      <div className="far-overlay state-gone" role="status" data-testid="far-overlay">
        <p className="far-line">{m.name} has no pane {splitPaneId(paneId).local} any more</p>
        <p className="far-detail">It was closed there, or that machine's state was cleared. Close it here to take it out of the layout.</p>
        <button type="button" className="text-button" onClick={() => void closePane(ctx, paneId)}>Close</button>
      </div>
    );
  }
  const label = m.info ? machineStateLabel(m.info) : 'not connected';
  return (
    <div className={`far-overlay state-${m.info?.state ?? 'unknown'}`} role="status" data-testid="far-overlay">
      <p className="far-line">{m.name}: {label}</p>
      {m.info?.reason ? <p className="far-detail"><CodeText text={m.info.reason} /></p> : <p className="far-detail">Its last screen is shown; what it prints meanwhile comes back when it does.</p>}
      {m.info && (m.info.state === 'reconnecting' || m.info.state === 'failed') ? (
        <button type="button" className="text-button" onClick={() => retryMachine(ctx, m.name)}>Retry now</button>
      ) : null}
    </div>
  );
}

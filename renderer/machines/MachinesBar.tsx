/**
 * The title bar's machines: each connected machine's name in its colour (with
 * "reconnecting…" while its link is down, why on hover, and Retry now; a far service of
 * another version, with Restart service), and "+ Machine…".
 */
import { useEffect, type ReactElement } from 'react';
import { useStore } from 'zustand';
import { useWindow, useWindowState } from '../context.ts';
import { splitPane } from '../commands.ts';
import { NEEDS_SERVICE, useStopped } from '../service/ui.ts';
import { machineChanged, machineStateLabel, machinesUi, retryMachine, showMachineDialog } from './ui.ts';
import './machines.css';

export function MachinesBar(): ReactElement {
  const ctx = useWindow();
  const ready = useWindowState((s) => s.ready);
  const machines = useStore(machinesUi, (s) => s.machines);
  const stopped = useStopped();
  const mine = typeof __TD_VERSION__ === 'string' ? __TD_VERSION__ : '';
  useEffect(() => {
    if (!ready) return;
    const off = ctx.api.on('machine.changed', machineChanged);
    ctx.api.invoke('machine.list', {}).then((list) => machinesUi.setState({ machines: list }), () => undefined);
    return off;
  }, [ctx, ready]);
  return (
    <span className="machines-bar" role="group" aria-label="Machines">
      {machines.map((m) => {
        const label = machineStateLabel(m);
        return (
          <span key={m.name} className={`machine-chip state-${m.state}`} data-machine={m.name} title={m.reason ?? `${m.name}: ${m.target}${m.hostname ? ` (${m.hostname})` : ''}, ${m.panes.length} pane${m.panes.length === 1 ? '' : 's'} running`}>
            <span className="machine-dot" style={{ background: m.colour }} aria-hidden="true" />
            <span className="machine-name">{m.name}</span>
            {label ? <span className="machine-state" role="status">{label}</span> : null}
            {m.state === 'connected' && m.version && mine && m.version !== mine ? (
              <>
                <span className="machine-version" title={`${m.name} runs terminal-delight ${m.version} and this window ${mine}: restart its service to run the version installed there (its panes come back through resume)`}>{m.version}</span>
                <button type="button" className="machine-retry" aria-label={`Restart service: ${m.name}`} onClick={() => {
                  ctx.api.invoke('machine.restart', { name: m.name }).catch((err: Error) => ctx.store.getState().notice(err.message));
                }}>Restart service</button>
              </>
            ) : null}
            {m.state === 'connected' ? (
              <button type="button" className="machine-retry" aria-label={`New pane on ${m.name}`} title={`A new pane on ${m.name}, beside the focused pane`} onClick={() => void splitPane(ctx, undefined, undefined, m.name)}>+ Pane</button>
            ) : null}
            {m.state === 'reconnecting' || m.state === 'failed' ? (
              <button type="button" className="machine-retry" aria-label={`Retry now: ${m.name}`} onClick={() => retryMachine(ctx, m.name)}>Retry now</button>
            ) : null}
          </span>
        );
      })}
      <button type="button" className="text-button small titlebar-button" data-testid="add-machine" disabled={stopped} title={stopped ? NEEDS_SERVICE : 'Connect another machine over your own ssh'} onClick={() => showMachineDialog()}>+ Machine…</button>
    </span>
  );
}

/**
 * "Quit and end all panes": asks first, listing what still runs (each running pane's
 * title and program, each Tick), then `service.quit {endPanes: true}`. Closing the window
 * instead keeps everything running.
 */
import { useEffect, useRef, useState, type ReactElement } from 'react';
import { useStore } from 'zustand';
import type { ServiceInfo } from '../../preload/contract.ts';
import { useWindow, useWindowState } from '../context.ts';
import { folderAfter } from '../../common/header-text.ts';
import { hideQuit, serviceUi } from './ui.ts';

export function QuitDialog(): ReactElement | null {
  const open = useStore(serviceUi, (s) => s.quitOpen);
  const n = useStore(serviceUi, (s) => s.quitN);
  if (!open) return null;
  return <Dialog n={n} />;
}

function Dialog({ n }: { n: number }): ReactElement {
  const ctx = useWindow();
  const [info, setInfo] = useState<ServiceInfo | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const cancel = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    cancel.current?.focus();
    ctx.api.invoke('service.info', {}).then(setInfo, (err: Error) => setError(err.message));
  }, [ctx, n]);

  const close = (): void => {
    hideQuit();
    const s = ctx.store.getState();
    if (s.focused) s.focusPane(s.focused, true);
  };

  const quit = async (): Promise<void> => {
    setBusy(true);
    try {
      const res = await ctx.api.invoke('service.quit', { endPanes: true });
      if (!res.ok) {
        setError(res.error ?? 'The service did not quit.');
        setBusy(false);
        return;
      }
      serviceUi.setState({ quitOpen: false, quit: true });
      ctx.disconnect?.();
    } catch (err) {
      setError((err as Error).message);
      setBusy(false);
    }
  };

  const running = info?.running ?? [];
  // Each pane's folder as this window knows it: beside a title that does not already say it (as a pane's header).
  const panes = useWindowState((st) => st.panes);
  const cwds: Record<string, string | undefined> = Object.fromEntries(running.map((p) => [p.paneId, panes[p.paneId]?.cwd]));
  const ticks = info?.ticks ?? [];
  return (
    <div className="td-modal-backdrop" onPointerDown={(e) => { if (e.target === e.currentTarget && !busy) close(); }}>
      <div
        className="td-modal quit-all"
        role="alertdialog"
        aria-modal="true"
        aria-labelledby="quit-all-title"
        aria-describedby="quit-all-detail"
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault();
            e.stopPropagation();
            if (!busy) close();
          }
        }}
      >
        <h2 id="quit-all-title">Quit and end all panes?</h2>
        <p id="quit-all-detail" className="quit-detail">
          {info === null && !error
            ? 'Looking at what still runs…'
            : running.length + ticks.length === 0
              ? 'Nothing is running. Terminal Delight will quit.'
              : `Each program gets a hang-up, then a terminate, then a kill if it is still there. Closing the window instead keeps ${running.length === 1 ? 'it' : 'them'} running.`}
        </p>
        {running.length > 0 ? (
          <ul className="quit-list" aria-label="Still running">
            {running.map((p) => (
              <li key={p.paneId}>
                <span className="quit-program">{p.program}</span>
                <span className="quit-title" title={cwds[p.paneId]}>{p.title}{folderAfter(p.title, cwds[p.paneId])}</span>
                {p.kind === 'agent' ? <span className="badge">agent</span> : null}
              </li>
            ))}
            {ticks.map((t) => (
              <li key={t.instanceId}>
                <span className="quit-program">Tick</span>
                <span className="quit-title">{t.title}</span>
              </li>
            ))}
          </ul>
        ) : null}
        {error ? <p className="quit-error" role="alert">{error}</p> : null}
        <div className="td-modal-buttons">
          <button ref={cancel} type="button" className="text-button" onClick={close} disabled={busy}>Keep running</button>
          <button type="button" className="text-button danger" onClick={() => void quit()} disabled={busy || (info === null && !error)}>
            {busy ? 'Ending…' : running.length > 0 ? `End ${running.length} pane${running.length === 1 ? '' : 's'} and quit` : 'Quit'}
          </button>
        </div>
      </div>
    </div>
  );
}

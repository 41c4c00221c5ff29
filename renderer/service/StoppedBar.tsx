/**
 * The service was stopped on purpose (`terminal-delight service stop`, a signal, idle): the
 * window says so in the service's own sentence and offers to start it again
 * (`service.start`, answered by serve, which holds the window's door meanwhile). Shown
 * whether or not this window got its hello (a reload while the service is stopped).
 */
import { useState, type ReactElement } from 'react';
import { useStore } from 'zustand';
import { useWindow } from '../context.ts';
import { CodeText } from '../CodeText.tsx';
import { serviceUi } from './ui.ts';

export function StoppedBar(): ReactElement | null {
  const ctx = useWindow();
  const stopped = useStore(serviceUi, (s) => s.stopped);
  const [busy, setBusy] = useState(false);
  if (!stopped) return null;

  const start = async (): Promise<void> => {
    setBusy(true);
    try {
      const res = await ctx.api.invoke('service.start', {});
      if (!res.ok) throw new Error(res.error ?? 'the service did not start');
      // The window reconnects to the new service and says hello; the bar goes once that answers.
      serviceUi.setState((s) => ({ startedN: s.startedN + 1 }));
    } catch (err) {
      ctx.store.getState().notice(`Starting the service failed: ${(err as Error).message}`);
      setBusy(false);
    }
  };

  return (
    <div className="service-bar" role="region" aria-label="Service">
      <div className="service-line" data-testid="service-stopped" role="status">
        <span><CodeText text={stopped} /></span>
        <button type="button" className="text-button primary" disabled={busy} onClick={() => void start()}>{busy ? 'Starting…' : 'Start the service'}</button>
      </div>
    </div>
  );
}

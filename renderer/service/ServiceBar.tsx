/**
 * The window's word on the service under it: panes that ended when it stopped (with
 * "Resume all"), a service of another version (with "Restart service"), and, once the
 * person quit, that everything has ended.
 */
import { useState, type ReactElement } from 'react';
import { useStore } from 'zustand';
import { useWindow, useWindowState } from '../context.ts';
import { compareVersions, endedSummary } from './ended.ts';
import { serviceUi } from './ui.ts';

export function ServiceBar(): ReactElement | null {
  const ctx = useWindow();
  const quit = useStore(serviceUi, (s) => s.quit);
  const panes = useWindowState((s) => s.panes);
  const serviceVersion = useWindowState((s) => s.version);
  const [busy, setBusy] = useState(false);
  const summary = endedSummary(Object.values(panes));
  const mine = typeof __TD_VERSION__ === 'string' ? __TD_VERSION__ : '';
  const order = serviceVersion && mine ? compareVersions(serviceVersion, mine) : 0;
  const older = order < 0;
  const newer = order > 0;

  if (quit) {
    return (
      <div className="service-bar quit" role="status">
        <span>Terminal Delight has quit and every pane has ended. Close this window, or start the app again.</span>
      </div>
    );
  }
  if (!summary && !older && !newer) return null;

  const resumeAll = async (): Promise<void> => {
    setBusy(true);
    try {
      const r = await ctx.api.invoke('pane.resumeAll', {});
      for (const f of r.failed) ctx.store.getState().notice(f.error);
    } catch (err) {
      ctx.store.getState().notice(`Resuming failed: ${(err as Error).message}`);
    } finally {
      setBusy(false);
    }
  };

  const restartService = async (): Promise<void> => {
    setBusy(true);
    try {
      // The service stops (its panes come back through resume); this window reconnects and starts the new one.
      await ctx.api.invoke('service.quit', { endPanes: false });
    } catch (err) {
      ctx.store.getState().notice(`Restarting the service failed: ${(err as Error).message}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="service-bar" role="region" aria-label="Service">
      {older ? (
        <div className="service-line" data-testid="service-version">
          <span>Terminal Delight's service is version {serviceVersion}, this window is {mine}: restart the service to update (your panes come back through resume).</span>
          <button type="button" className="text-button" disabled={busy} onClick={() => void restartService()}>Restart service</button>
        </div>
      ) : null}
      {newer ? (
        <div className="service-line" data-testid="service-version">
          <span>This window is version {mine} and Terminal Delight's service is {serviceVersion}: restart the app (or reload this window) to use the newer one.</span>
        </div>
      ) : null}
      {summary ? (
        <div className="service-line" data-testid="ended-summary">
          <span>{summary.count === 1 ? '1 pane' : `${summary.count} panes`} ended: {summary.reason.replace(/\.$/, '')}.</span>
          <button type="button" className="text-button primary" disabled={busy} onClick={() => void resumeAll()}>Resume all</button>
        </div>
      ) : null}
    </div>
  );
}

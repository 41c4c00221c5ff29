/**
 * "Open on the desktop" for an artifact the viewer cannot show: in Electron (window.td
 * is the preload bridge) it asks the shell to hand the file to the desktop's own
 * program ('artifact.reveal', shell.openPath). In a browser it renders nothing: the
 * viewer's download link does that job.
 */
import { useState, type ReactElement } from 'react';
import { benchApi, errorText } from '../workbench/runtime.ts';

export function isElectronWindow(): boolean {
  return typeof (window as { td?: unknown }).td === 'object';
}

export function RevealButton({ paneId, surfaceId, name }: { paneId: string; surfaceId: string; name: string }): ReactElement | null {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (!isElectronWindow()) return null;
  const reveal = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      const r = await benchApi().invoke('artifact.reveal', { paneId, surfaceId });
      if (!r.ok) setError(r.error ?? `The desktop could not open ${name}.`);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" className="tdb-btn tdb-primary" disabled={busy} onClick={() => void reveal()} aria-label={`Open ${name} on the desktop`}>
        Open on the desktop
      </button>
      {error ? <p role="alert">{error}</p> : null}
    </>
  );
}

/**
 * "+ Machine…": connect another machine over the person's own ssh ('machine.connect'), or
 * one used before (settings.machines, with its state). A failure stays in the dialog as
 * the service's one sentence (why, and the command that fixes it).
 */
import { useEffect, useRef, useState, type FormEvent, type ReactElement } from 'react';
import { useStore } from 'zustand';
import { useWindow, useWindowState } from '../context.ts';
import { ModalForm } from '../agents/ModalForm.tsx';
import { CodeText } from '../CodeText.tsx';
import { hideMachineDialog, machineChanged, machineStateLabel, machinesUi } from './ui.ts';

export function MachineDialog(): ReactElement | null {
  const open = useStore(machinesUi, (s) => s.open);
  const n = useStore(machinesUi, (s) => s.n);
  if (!open) return null;
  return <Dialog n={n} />;
}

function Dialog({ n }: { n: number }): ReactElement {
  const ctx = useWindow();
  const saved = useWindowState((s) => s.settings.machines ?? []);
  const live = useStore(machinesUi, (s) => s.machines);
  const [target, setTarget] = useState('');
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), [n]);

  const close = (): void => {
    hideMachineDialog();
  };

  const connect = async (req: { target: string; name?: string }): Promise<void> => {
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      machineChanged(await ctx.api.invoke('machine.connect', req));
      close();
    } catch (err) {
      const t = (err instanceof Error ? err.message : String(err)).trim();
      setError(/[.!?]$/.test(t) ? t : `${t}.`);
    } finally {
      setBusy(false);
    }
  };

  const submit = (e: FormEvent): void => {
    e.preventDefault();
    if (!target.trim()) return;
    void connect({ target: target.trim(), ...(name.trim() ? { name: name.trim() } : {}) });
  };

  return (
    <ModalForm className="machine-dialog" labelledBy="machine-title" describedBy="machine-hint" busy={busy} onClose={close} onSubmit={submit}>
      <h2 id="machine-title">Connect a machine</h2>
      <p className="hint" id="machine-hint">Over your own ssh: your ~/.ssh/config, keys, agent and known_hosts. The machine needs Node 22.12 or newer and terminal-delight.</p>
      {saved.length > 0 ? (
        <ul className="machine-list" aria-label="Machines used before">
          {saved.map((r) => {
            const m = live.find((x) => x.name === r.name);
            const label = m ? machineStateLabel(m) || 'connected' : 'not connected';
            return (
              <li key={r.name}>
                <button type="button" className="machine-row" disabled={busy} onClick={() => void connect({ target: r.target, name: r.name })}>
                  <span className="machine-dot" style={{ background: r.colour }} aria-hidden="true" />
                  <span className="machine-name">{r.name}</span>
                  <span className="machine-target">{r.target}</span>
                  <span className="machine-row-state">{label}</span>
                </button>
              </li>
            );
          })}
        </ul>
      ) : null}
      <label>
        <span>Machine</span>
        <input ref={input} name="target" value={target} spellCheck={false} autoComplete="off" placeholder="build-box, or user@host:port" onChange={(e) => setTarget(e.target.value)} />
      </label>
      <label>
        <span>Name</span>
        <input name="name" value={name} spellCheck={false} autoComplete="off" placeholder="the host" onChange={(e) => setName(e.target.value)} />
      </label>
      {error ? <p className="machine-error" role="alert"><CodeText text={error} /></p> : null}
      <div className="td-modal-buttons">
        <button type="button" className="text-button" onClick={close} disabled={busy}>Cancel</button>
        <button type="submit" className="text-button primary" disabled={busy || !target.trim()}>{busy ? 'Connecting…' : 'Connect'}</button>
      </div>
    </ModalForm>
  );
}

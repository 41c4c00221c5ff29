/**
 * "Open Tick…": a command line (split like a shell would, never run by one), a
 * working folder and a title; calls 'tick.open'. A failure stays in the dialog: one
 * sentence, and the first 256 characters of the Tick's screen in a <pre>.
 */
import { useEffect, useRef, useState, type FormEvent, type ReactElement } from 'react';
import { useStore } from 'zustand';
import { focusPane } from '../commands.ts';
import { useWindow, useWindowState } from '../context.ts';
import { parseCommandLine } from './argv.ts';
import { ModalForm } from './ModalForm.tsx';
import { agentsUi, hideOpenTick } from './ui.ts';

export function OpenTickDialog(): ReactElement | null {
  const open = useStore(agentsUi, (s) => s.openTick);
  const n = useStore(agentsUi, (s) => s.openTickN);
  if (!open) return null;
  return <Dialog n={n} />;
}

function Dialog({ n }: { n: number }): ReactElement {
  const ctx = useWindow();
  const focusedCwd = useWindowState((s) => (s.focused ? s.panes[s.focused]?.cwd ?? '' : ''));
  const [command, setCommand] = useState('');
  const [cwd, setCwd] = useState(focusedCwd);
  const [title, setTitle] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ text: string; screen?: string } | null>(null);
  const first = useRef<HTMLInputElement>(null);

  useEffect(() => {
    first.current?.focus();
  }, [n]);

  const close = (): void => {
    hideOpenTick();
    const s = ctx.store.getState();
    if (s.focused) s.focusPane(s.focused, true);
  };

  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    if (busy) return;
    const parsed = parseCommandLine(command);
    if (!parsed.ok) {
      setError({ text: parsed.error });
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const res = await ctx.api.invoke('tick.open', {
        command: parsed.argv,
        ...(cwd.trim() ? { cwd: cwd.trim() } : {}),
        ...(title.trim() ? { title: title.trim() } : {}),
      });
      if (res.ok) {
        hideOpenTick();
        focusPane(ctx, res.paneId, true);
        return;
      }
      const screen = res.screen?.slice(0, 256).replace(/\s+$/, '');
      setError({ text: sentence(res.error), ...(screen ? { screen } : {}) });
    } catch (err) {
      setError({ text: sentence(err instanceof Error ? err.message : String(err)) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <ModalForm className="open-tick" labelledBy="open-tick-title" busy={busy} onClose={close} onSubmit={(e) => void submit(e)}>
        <h2 id="open-tick-title">Open a Tick</h2>
        <label>
          <span>Command</span>
          <input ref={first} name="command" value={command} spellCheck={false} autoComplete="off" placeholder="node ./ticks/counter.mjs --start 3" onChange={(e) => setCommand(e.target.value)} />
        </label>
        <p className="hint">Split into words like a shell would ('quotes' and "quotes" keep spaces); nothing is expanded.</p>
        <label>
          <span>Working folder</span>
          <input name="cwd" value={cwd} spellCheck={false} autoComplete="off" placeholder="the app's folder" onChange={(e) => setCwd(e.target.value)} />
        </label>
        <label>
          <span>Title</span>
          <input name="title" value={title} autoComplete="off" placeholder="the Tick's own title" onChange={(e) => setTitle(e.target.value)} />
        </label>
        {error ? (
          <div className="open-tick-error" role="alert">
            <p>{error.text}</p>
            {error.screen ? <pre aria-label="The Tick's screen">{error.screen}</pre> : null}
          </div>
        ) : null}
        <div className="td-modal-buttons">
          <button type="button" className="text-button" onClick={close} disabled={busy}>Cancel</button>
          <button type="submit" className="text-button primary" disabled={busy || !command.trim()}>{busy ? 'Opening…' : 'Open'}</button>
        </div>
    </ModalForm>
  );
}

/** The core's reason as one sentence a person reads: capitalised, ending in a full stop. */
function sentence(reason: string): string {
  const t = reason.trim() || 'The Tick did not open';
  const s = /^the tick/i.test(t) ? `T${t.slice(1)}` : `The Tick did not open: ${t}`;
  return /[.!?]$/.test(s) ? s : `${s}.`;
}

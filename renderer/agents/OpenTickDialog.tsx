/**
 * "Open Tick…": the installed Tick packages first (for the focused pane's folder, each
 * with its prerequisites and whether they look met), then a free command line (split
 * like a shell would, never run by one) with a working folder; a title for either.
 * Calls 'tick.open' by package or by command. A failure stays in the dialog: one
 * sentence, and the first 256 characters of the Tick's screen in a <pre>.
 */
import { useEffect, useRef, useState, type FormEvent, type ReactElement } from 'react';
import { useStore } from 'zustand';
import type { TickPackageInfo } from '../../preload/contract.ts';
import { parseCommandLine } from '../../common/argv.ts';
import { focusPane } from '../commands.ts';
import { useWindow, useWindowState } from '../context.ts';
import { ModalForm } from './ModalForm.tsx';
import { MachineChoice, useMachineChoice } from '../machines/MachineChoice.tsx';
import { splitPaneId } from '../../common/pane-id.ts';
import { PackageChoices } from './TickPackages.tsx';
import { agentsUi, hideOpenTick } from './ui.ts';

/** The choice: a package (by its folder) or the command line. */
const COMMAND = 'command';

export function OpenTickDialog(): ReactElement | null {
  const open = useStore(agentsUi, (s) => s.openTick);
  const n = useStore(agentsUi, (s) => s.openTickN);
  if (!open) return null;
  return <Dialog n={n} />;
}

function Dialog({ n }: { n: number }): ReactElement {
  const ctx = useWindow();
  const focusedCwd = useWindowState((s) => (s.focused ? s.panes[s.focused]?.cwd ?? '' : ''));
  const focused = useWindowState((s) => s.focused);
  const { machines, machine, setMachine } = useMachineChoice(focused);
  // The focused pane's folder means something only on its own machine.
  const here = machine === (splitPaneId(focused ?? '').machine ?? '') ? focusedCwd : '';
  const [packages, setPackages] = useState<TickPackageInfo[] | null>(null);
  const [choice, setChoice] = useState<string>(COMMAND);
  const [command, setCommand] = useState('');
  const [cwd, setCwd] = useState(here);
  const [title, setTitle] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ text: string; screen?: string } | null>(null);
  const commandInput = useRef<HTMLInputElement>(null);
  /** The person went for the command line before the list arrived: leave their choice and focus alone. */
  const touched = useRef(false);

  useEffect(() => {
    let live = true;
    setPackages(null);
    ctx.api.invoke('tick.packages', { ...(here ? { cwd: here } : {}), ...(machine ? { machine } : {}) }).then(
      (list) => {
        if (!live) return;
        setPackages(list);
        const first = list.find((p) => p.ready) ?? list.find((p) => !p.problem);
        if (first && !touched.current) setChoice(first.folder);
      },
      () => live && setPackages([]),
    );
    return () => {
      live = false;
    };
  }, [ctx, here, machine]);

  // Focus the choice: at once (the command line while the list loads), again on Ctrl+Shift+O,
  // and the chosen package when the list arrives, unless the person began typing a command.
  const focusChoice = (): void => {
    const radio = commandInput.current?.form?.querySelector<HTMLInputElement>('input[name="tick-choice"]:checked');
    if (radio && radio.value !== COMMAND) radio.focus();
    else commandInput.current?.focus();
  };
  useEffect(focusChoice, [n]);
  useEffect(() => {
    if (packages !== null && !touched.current) focusChoice();
  }, [packages]);

  const close = (): void => {
    hideOpenTick();
  };

  const chosen = choice === COMMAND ? undefined : packages?.find((p) => p.folder === choice);

  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    if (busy) return;
    let req: { command?: string[]; package?: string; cwd?: string; title?: string; machine?: string };
    if (chosen) {
      req = { package: chosen.folder };
    } else {
      const parsed = parseCommandLine(command);
      if (!parsed.ok) {
        setError({ text: parsed.error });
        return;
      }
      req = { command: parsed.argv, ...(cwd.trim() ? { cwd: cwd.trim() } : {}) };
    }
    if (title.trim()) req.title = title.trim();
    if (machines.length > 0) req.machine = machine;
    setBusy(true);
    setError(null);
    try {
      const res = await ctx.api.invoke('tick.open', req);
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

  const hasPackages = (packages?.length ?? 0) > 0;
  return (
    <ModalForm className="open-tick" labelledBy="open-tick-title" busy={busy} onClose={close} onSubmit={(e) => void submit(e)}>
        <h2 id="open-tick-title">Open a Tick</h2>
        <MachineChoice className="open-tick-machine" machines={machines} machine={machine} onChange={(m) => { setMachine(m); setCwd(m === (splitPaneId(focused ?? '').machine ?? '') ? focusedCwd : ''); }} disabled={busy} />
        {packages === null ? <p className="hint" role="status">Looking for installed Ticks…</p> : null}
        {hasPackages ? (
          <PackageChoices packages={packages!} choice={choice} onChoose={setChoice} />
        ) : packages !== null ? (
          <p className="hint open-tick-none">No Tick packages are installed; <code>terminal-delight tick install counter</code> installs a sample.</p>
        ) : null}
        <fieldset className={`open-tick-command${hasPackages ? ' with-choice' : ''}`}>
          {hasPackages ? (
            <label className="open-tick-choice">
              <input type="radio" name="tick-choice" value={COMMAND} checked={choice === COMMAND} onChange={() => setChoice(COMMAND)} />
              <span className="open-tick-name">A command line</span>
            </label>
          ) : null}
          <label>
            <span>Command</span>
            <input ref={commandInput} name="command" value={command} spellCheck={false} autoComplete="off" placeholder="node ./ticks/counter.mjs --start 3"
              onFocus={() => setChoice(COMMAND)} onChange={(e) => { touched.current = true; setChoice(COMMAND); setCommand(e.target.value); }} />
          </label>
          <p className="hint">Split into words like a shell would ('quotes' and "quotes" keep spaces); nothing is expanded.</p>
          <label>
            <span>Working folder</span>
            <input name="cwd" value={cwd} spellCheck={false} autoComplete="off" placeholder="the app's folder"
              onFocus={() => setChoice(COMMAND)} onChange={(e) => setCwd(e.target.value)} />
          </label>
        </fieldset>
        <label>
          <span>Title</span>
          <input name="title" value={title} autoComplete="off" placeholder={chosen?.launch?.title ?? "the Tick's own title"} onChange={(e) => setTitle(e.target.value)} />
        </label>
        {error ? (
          <div className="open-tick-error" role="alert">
            <p>{error.text}</p>
            {error.screen ? <pre aria-label="The Tick's screen">{error.screen}</pre> : null}
          </div>
        ) : null}
        <div className="td-modal-buttons">
          <button type="button" className="text-button" onClick={close} disabled={busy}>Cancel</button>
          <button type="submit" className="text-button primary" disabled={busy || (chosen ? !!chosen.problem : !command.trim())}>{busy ? 'Opening…' : 'Open'}</button>
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

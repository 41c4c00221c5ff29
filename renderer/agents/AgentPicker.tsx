/**
 * "+ Agent" (Ctrl+Shift+A): choose which agent the new pane runs. Every agent the app
 * knows is a row ('agent.available'): the configured one (settings.agentCommand) first,
 * then those installed, then the rest with how to install them. Enter (or a click)
 * starts the chosen one with 'agent.new {command}' beside the focused pane, so
 * Ctrl+Shift+A then Enter starts the configured agent as before. A listbox: ↑ ↓ Home
 * End move, Escape closes; a failure stays in the chooser as one sentence. With machines
 * connected, "On" chooses where it runs: the agents listed are that machine's, and the pane
 * is made there ('agent.new {machine}').
 */
import { useEffect, useLayoutEffect, useRef, useState, type FormEvent, type ReactElement } from 'react';
import { useStore } from 'zustand';
import { newAgent } from '../commands.ts';
import { useWindow, useWindowState } from '../context.ts';
import { ModalForm } from './ModalForm.tsx';
import { agentPickerUi, availableAsk, firstActive, hideAgentPicker, moveActive, pickerRows, type PickerRow } from './picker.ts';
import { sentence } from './WorktreeDialog.tsx';
import { MachineChoice, useMachineChoice } from '../machines/MachineChoice.tsx';
import { CodeText } from '../CodeText.tsx';

export function AgentPicker(): ReactElement | null {
  const open = useStore(agentPickerUi, (s) => s.open);
  const n = useStore(agentPickerUi, (s) => s.n);
  if (!open) return null;
  return <Chooser n={n} />;
}

function Chooser({ n }: { n: number }): ReactElement {
  const ctx = useWindow();
  const agentCommand = useWindowState((s) => s.settings.agentCommand);
  const [rows, setRows] = useState<PickerRow[] | null>(null);
  const [active, setActive] = useState(0);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const list = useRef<HTMLUListElement>(null);
  // The pane the agent starts beside (newAgent's: the one asked, else the focused one), as it was when the chooser opened.
  const [beside] = useState(() => agentPickerUi.getState().splitOf ?? ctx.store.getState().focused ?? undefined);
  const { machines, machine, setMachine } = useMachineChoice(beside);

  // Asked each time it opens (or another machine is chosen): an agent installed a minute ago is there.
  useEffect(() => {
    let live = true;
    setRows(null);
    ctx.api.invoke('agent.available', availableAsk(beside, machine)).then((agents) => {
      if (!live) return;
      // This window's settings.agentCommand is this machine's: another machine lists its own.
      const made = pickerRows(agents, machine ? [] : agentCommand);
      setRows(made);
      setActive(firstActive(made));
    }, (err) => {
      if (!live) return;
      setRows(pickerRows([], agentCommand));
      setError(sentence(`could not list the agents (${err instanceof Error ? err.message : String(err)}); the configured command still starts`));
    });
    return () => {
      live = false;
    };
  }, [ctx.api, agentCommand, machine, beside]);

  // Before the list is painted: a key pressed once the agents show goes to the list.
  useLayoutEffect(() => {
    list.current?.focus();
  }, [n, rows !== null]);

  useEffect(() => {
    list.current?.querySelector('[aria-selected="true"]')?.scrollIntoView({ block: 'nearest' });
  }, [active]);

  const close = (): void => {
    hideAgentPicker();
  };

  const start = async (row: PickerRow | undefined): Promise<void> => {
    if (!row || busy) return;
    if (!row.installed) {
      setError(`${row.label} is not installed: run ${row.install}, then choose it again.`);
      return;
    }
    setBusy(true);
    setError(null);
    const pane = await newAgent(ctx, beside, row.command, (msg) => setError(sentence(msg)), machine);
    setBusy(false);
    if (pane) hideAgentPicker();
  };

  const submit = (e: FormEvent): void => {
    e.preventDefault();
    void start(rows?.[active]);
  };

  const optionId = (r: PickerRow) => `agent-option-${r.key}`;
  return (
    <ModalForm className="agent-picker" labelledBy="agent-picker-title" describedBy="agent-picker-about" busy={busy} onClose={close} onSubmit={submit}>
      <h2 id="agent-picker-title">Start an agent</h2>
      <p id="agent-picker-about" className="hint about">In a new pane beside this one. ↑ ↓ to choose, Enter to start.</p>
      <MachineChoice className="agent-picker-machine" machines={machines} machine={machine} onChange={setMachine} disabled={busy} />
      {rows === null ? (
        <p className="hint">Looking for agents…</p>
      ) : (
        <ul
          ref={list}
          className="agent-picker-list"
          role="listbox"
          tabIndex={0}
          aria-label="Agents"
          aria-activedescendant={rows[active] ? optionId(rows[active]) : undefined}
          onKeyDown={(e) => {
            if (e.key === 'Enter' || e.key === ' ') {
              e.preventDefault();
              void start(rows[active]);
              return;
            }
            const next = moveActive(active, rows.length, e.key);
            if (next !== active || ['ArrowDown', 'ArrowUp', 'Home', 'End'].includes(e.key)) {
              e.preventDefault();
              setActive(next);
              setError(null);
            }
          }}
        >
          {rows.map((r, i) => (
            <li
              key={r.key}
              id={optionId(r)}
              role="option"
              aria-selected={i === active}
              aria-disabled={!r.installed || undefined}
              aria-describedby={`${optionId(r)}-detail${i === active && r.hooksCommand ? ' agent-picker-hooks' : ''}`}
              className={`agent-picker-row${i === active ? ' is-active' : ''}${r.installed ? '' : ' not-installed'}`}
              data-agent={r.key}
              onPointerDown={(e) => e.preventDefault()}
              onClick={() => {
                setActive(i);
                void start(r);
              }}
            >
              <span className="agent-picker-label">
                {r.label}
                {r.configured ? <span className="agent-picker-badge" title="settings.agentCommand">default</span> : null}
                {!r.installed ? <span className="agent-picker-badge missing">not installed</span> : null}
                {r.hooksCommand ? <span className="agent-picker-badge no-hooks" title={`Install them with: ${r.hooksCommand}`}>no hooks</span> : null}
              </span>
              <span id={`${optionId(r)}-detail`} className="agent-picker-detail">{r.detail}</span>
            </li>
          ))}
        </ul>
      )}
      {rows?.[active]?.hooksCommand ? (
        <p id="agent-picker-hooks" className="hint agent-picker-hooks" data-testid="agent-picker-hooks">
          <CodeText text={`${rows[active].label}'s hooks are not installed, so its status, questions and permission prompts will not reach the bench: run \`${rows[active].hooksCommand}\`${machine ? ` on ${machine}` : ''} once.`} />
        </p>
      ) : null}
      {error ? <div className="open-tick-error" role="alert"><p>{error}</p></div> : null}
      <div className="td-modal-buttons">
        <button type="button" className="text-button" onClick={close} disabled={busy}>Cancel</button>
        <button type="submit" className="text-button primary" disabled={busy || !rows?.[active]?.installed}>
          {busy ? 'Starting…' : rows?.[active] ? `Start ${rows[active].label}` : 'Start'}
        </button>
      </div>
    </ModalForm>
  );
}

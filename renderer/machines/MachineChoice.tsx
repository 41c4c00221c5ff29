/**
 * "On": where a new pane runs (+ Agent, New agent in a worktree, Open Tick), shown once a
 * machine is connected: this machine or a connected one, at first the machine of the pane it
 * goes beside. '' is this machine. The dialog sends the choice as `machine`.
 */
import { useState, type ReactElement } from 'react';
import { useStore } from 'zustand';
import { splitPaneId } from '../../common/pane-id.ts';
import { machinesUi } from './ui.ts';

/** The connected machines' names, and the choice (at first `beside`'s machine when it is connected). */
export function useMachineChoice(beside: string | null | undefined): { machines: string[]; machine: string; setMachine: (m: string) => void } {
  const joined = useStore(machinesUi, (s) => s.machines.filter((m) => m.state === 'connected').map((m) => m.name).join('\n'));
  const [machine, setMachine] = useState(() => {
    const m = splitPaneId(beside ?? '').machine;
    return m && machinesUi.getState().machines.some((x) => x.name === m && x.state === 'connected') ? m : '';
  });
  return { machines: joined ? joined.split('\n') : [], machine, setMachine };
}

export function MachineChoice({ machines, machine, onChange, disabled, className }: { machines: string[]; machine: string; onChange: (m: string) => void; disabled?: boolean; className: string }): ReactElement | null {
  if (machines.length === 0) return null;
  return (
    <label className={className}>
      On
      <select value={machine} onChange={(e) => onChange(e.target.value)} disabled={disabled}>
        <option value="">this machine</option>
        {machines.map((name) => <option key={name} value={name}>{name}</option>)}
      </select>
    </label>
  );
}

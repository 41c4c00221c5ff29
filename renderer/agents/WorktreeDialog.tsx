/**
 * "New agent in a worktree…": the repository (default: the focused pane's), the base
 * branch (default: the current one), a name (default: from the first prompt, or made
 * up) and an optional first prompt; calls 'worktree.new'. A refusal stays in the
 * dialog as one sentence and nothing was made.
 */
import { useEffect, useRef, useState, type FormEvent, type ReactElement } from 'react';
import { useStore } from 'zustand';
import type { Res } from '../../preload/contract.ts';
import { nameFromPrompt as nameHint } from '../../common/worktree-names.ts';
import { focusPane } from '../commands.ts';
import { useWindow, useWindowState } from '../context.ts';
import { ModalForm } from './ModalForm.tsx';
import { MachineChoice, useMachineChoice } from '../machines/MachineChoice.tsx';
import { splitPaneId } from '../../common/pane-id.ts';
import { hideWorktreeDialog, worktreesUi } from './worktrees.ts';

type Probe = Extract<Res<'worktree.probe'>, { ok: true }>;

export function WorktreeDialog(): ReactElement | null {
  const open = useStore(worktreesUi, (s) => s.dialog);
  const n = useStore(worktreesUi, (s) => s.dialogN);
  if (!open) return null;
  return <Dialog n={n} />;
}

/** The core's reason as a sentence a person reads: capitalised, ending in a full stop. */
export function sentence(reason: string): string {
  const t = reason.trim() || 'Something went wrong; try again';
  const s = t[0]!.toUpperCase() + t.slice(1);
  return /[.!?]$/.test(s) ? s : `${s}.`;
}

function Dialog({ n }: { n: number }): ReactElement {
  const ctx = useWindow();
  const focusedCwd = useWindowState((s) => (s.focused ? s.panes[s.focused]?.cwd ?? '' : ''));
  const focused = useWindowState((s) => s.focused);
  const agentCommand = useWindowState((s) => s.settings.agentCommand.join(' '));
  const { machines, machine, setMachine } = useMachineChoice(focused);
  // The focused pane's folder is on its own machine: another machine's repository is typed.
  const [repo, setRepo] = useState(focusedCwd);
  const choose = (m: string): void => {
    setMachine(m);
    setRepo(m === (splitPaneId(focused ?? '').machine ?? '') ? focusedCwd : '');
  };
  const [probe, setProbe] = useState<Probe | null>(null);
  const [probeError, setProbeError] = useState<string | null>(null);
  const [base, setBase] = useState('');
  const [name, setName] = useState('');
  const [prompt, setPrompt] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const first = useRef<HTMLInputElement>(null);

  useEffect(() => {
    first.current?.focus();
    first.current?.select();
  }, [n]);

  // What the folder is: its repository and branches (again as the person types, a little later).
  useEffect(() => {
    let live = true;
    const t = setTimeout(() => {
      ctx.api.invoke('worktree.probe', { ...(repo.trim() ? { dir: repo.trim() } : {}), ...(machine ? { machine } : {}) }).then((res) => {
        if (!live) return;
        if (res.ok) {
          setProbe(res);
          setProbeError(null);
          setBase((b) => (b && res.branches.includes(b) ? b : res.current ?? res.branches[0] ?? ''));
        } else {
          setProbe(null);
          setProbeError(sentence(res.error));
        }
      }, (err) => live && setProbeError(sentence(err instanceof Error ? err.message : String(err))));
    }, 250);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [ctx.api, repo, machine]);

  const close = (): void => {
    hideWorktreeDialog();
  };

  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      const res = await ctx.api.invoke('worktree.new', {
        ...(repo.trim() ? { repo: repo.trim() } : {}),
        ...(base ? { base } : {}),
        ...(name.trim() ? { name: name.trim() } : {}),
        ...(prompt.trim() ? { prompt: prompt.trim() } : {}),
        ...(focused ? { splitOf: focused } : {}),
        ...(machines.length > 0 ? { machine } : {}),
      });
      if (res.ok) {
        hideWorktreeDialog();
        ctx.store.getState().paneUpdated(res.pane);
        focusPane(ctx, res.pane.id, true);
        return;
      }
      setError(sentence(res.error));
    } catch (err) {
      setError(sentence(err instanceof Error ? err.message : String(err)));
    } finally {
      setBusy(false);
    }
  };

  const shownName = name.trim() || nameHint(prompt) || 'agent-…';
  const where = probe ? `${probe.folder}/${shownName.replace(/\//g, '-')}` : '';
  return (
    <ModalForm className="new-worktree" labelledBy="new-worktree-title" describedBy="new-worktree-about" busy={busy} onClose={close} onSubmit={(e) => void submit(e)}>
        <h2 id="new-worktree-title">New agent in a worktree</h2>
        <p id="new-worktree-about" className="hint about">The agent gets its own branch and folder, so it never writes over your work or another agent's. Review its changes on the bench, then merge.</p>
        <MachineChoice className="new-worktree-machine" machines={machines} machine={machine} onChange={choose} disabled={busy} />
        <label>
          <span>Repository</span>
          <input ref={first} name="repo" value={repo} spellCheck={false} autoComplete="off" placeholder="the focused pane's folder" aria-invalid={probeError ? 'true' : undefined} aria-describedby={probeError ? 'new-worktree-probe' : undefined} onChange={(e) => setRepo(e.target.value)} />
        </label>
        {probeError ? <p id="new-worktree-probe" className="hint bad">{probeError}</p> : probe && probe.repo !== repo.trim() ? <p className="hint">Repository: {probe.repo}</p> : null}
        <div className="row">
          <label>
            <span>Base branch</span>
            <select name="base" value={base} disabled={!probe} onChange={(e) => setBase(e.target.value)}>
              {(probe?.branches ?? []).map((b) => <option key={b} value={b}>{b}{b === probe?.current ? ' (current)' : ''}</option>)}
            </select>
          </label>
          <label>
            <span>Name (the new branch)</span>
            <input name="name" value={name} spellCheck={false} autoComplete="off" placeholder={nameHint(prompt) || 'made up when empty'} onChange={(e) => setName(e.target.value)} />
          </label>
        </div>
        <label>
          <span>First prompt (optional)</span>
          <textarea name="prompt" rows={3} value={prompt} placeholder="What the agent should do first; it also names the branch" onChange={(e) => setPrompt(e.target.value)} />
        </label>
        <dl className="new-worktree-facts">
          <dt>Folder</dt><dd title={where}>{where || '…'}</dd>
          <dt>Agent</dt><dd>{agentCommand}</dd>
          {probe?.setup ? (<><dt>Setup</dt><dd><code>{probe.setup}</code></dd></>) : null}
        </dl>
        {error ? (
          <div className="open-tick-error" role="alert"><p>{error}</p></div>
        ) : null}
        <div className="td-modal-buttons">
          <button type="button" className="text-button" onClick={close} disabled={busy}>Cancel</button>
          <button type="submit" className="text-button primary" disabled={busy || !probe}>{busy ? (probe?.setup ? 'Setting up…' : 'Starting…') : 'Start agent'}</button>
        </div>
    </ModalForm>
  );
}

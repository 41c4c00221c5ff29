/**
 * The installed Tick packages in the Open Tick dialog: one radio each (arrow keys move
 * between them), with its description and its prerequisites as met, not met (what is
 * missing) or for a person to check. A package whose Skill does not read shows why and
 * cannot be chosen.
 */
import type { ReactElement } from 'react';
import type { PrerequisiteStatus, TickPackageInfo } from '../../preload/contract.ts';

const STATE: Record<'met' | 'unmet' | 'manual', { mark: string; words: string }> = {
  met: { mark: '✓', words: 'met' },
  unmet: { mark: '✗', words: 'not met' },
  manual: { mark: '•', words: 'for you to check' },
};

function stateOf(p: PrerequisiteStatus): keyof typeof STATE {
  return p.met === true ? 'met' : p.met === false ? 'unmet' : 'manual';
}

export function PackageChoices({ packages, choice, onChoose }: { packages: TickPackageInfo[]; choice: string; onChoose(folder: string): void }): ReactElement {
  return (
    <fieldset className="open-tick-packages">
      <legend>Installed Ticks</legend>
      {packages.map((p, i) => {
        const id = `open-tick-package-${i}`;
        return (
          <label key={p.folder} className={`open-tick-choice${p.problem ? ' broken' : ''}`} data-testid="tick-package">
            <input type="radio" name="tick-choice" value={p.folder} checked={choice === p.folder} disabled={!!p.problem}
              aria-describedby={`${id}-about`} onChange={() => onChoose(p.folder)} />
            <span className="open-tick-name">{p.launch?.title ?? p.name}</span>
            <span className="open-tick-meta">{p.name} · {p.scope === 'project' ? 'this project' : 'yours'}{p.problem ? ' · cannot open' : p.ready ? '' : ' · needs setup'}</span>
            <span id={`${id}-about`} className="open-tick-about">
              {p.problem ? <span className="open-tick-problem">{p.problem}</span> : <span className="open-tick-description" title={p.description}>{p.description}</span>}
              {!p.problem ? (
                <span className="open-tick-needs">
                  {p.prerequisites.length === 0 ? <span className="prereq met">Needs nothing first.</span> : p.prerequisites.map((r) => {
                    const s = STATE[stateOf(r)];
                    return (
                      <span key={r.text} className={`prereq ${stateOf(r)}`}>
                        {/* Unmet, what is missing in words ("TOKEN is not set"), not the package's line again beside it. */}
                        <span aria-hidden="true">{s.mark}</span> <span title={r.text}>{r.met === false && r.detail ? r.detail : r.text}</span>
                        <span className="sr-only">: {s.words}</span>
                      </span>
                    );
                  })}
                </span>
              ) : null}
            </span>
          </label>
        );
      })}
    </fieldset>
  );
}

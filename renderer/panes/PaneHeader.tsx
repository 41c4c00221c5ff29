/**
 * A pane's header: title and cwd, exit status with Restart once the process has
 * ended, the agent's status and unseen surfaces, and the pane's buttons.
 */
import { useLayoutEffect, useRef, type ReactElement, type ReactNode } from 'react';
import type { AgentStatus, PaneInfo } from '../../preload/contract.ts';
import { closePane, focusPane, restartPane, splitPane, toggleBench } from '../commands.ts';
import { useWindow, useWindowState } from '../context.ts';
import { shortcutLabel, type WindowCommand } from '../keys.ts';
import { BenchIcon, CloseIcon, RestartIcon, SplitDownIcon, SplitRightIcon } from './icons.tsx';
import { usageBadge } from './usage.ts';
import { MachineBadge } from '../machines/FarPane.tsx';
import { TickHeaderParts, WorktreeBadge, agentTip, tickCloseTip } from '../agents/HeaderParts.tsx';
import { NEEDS_SERVICE, useStopped } from '../service/ui.ts';
import { exitText, headerTitle, lastCommandParts, shortPath, statusDot } from '../../common/header-text.ts';

const AGENT_LABEL: Record<AgentStatus, string> = {
  working: 'working',
  blocked: 'needs you',
  done: 'done',
  idle: 'idle',
};

interface Props {
  paneId: string;
  pane: PaneInfo | undefined;
  focused: boolean;
  single: boolean;
}

export function PaneHeader({ paneId, pane, focused, single }: Props): ReactElement {
  const ctx = useWindow();
  const platform = useWindowState((s) => s.platform);
  const tip = (label: string, cmd: WindowCommand): string => {
    const keys = shortcutLabel(cmd, platform);
    return keys ? `${label} (${keys})` : label;
  };
  const exited = pane?.status === 'exited';
  const stopped = useStopped();
  const { title, cwd, showCwd } = headerTitle(pane);

  return (
    <header
      className="pane-header"
      data-focused={focused ? 'true' : 'false'}
      // A press on the header's bare parts leaves the keyboard in the terminal (the pane takes it), not on the page.
      onMouseDown={(e) => { if (!(e.target as HTMLElement).closest('button, a, input, select, textarea')) e.preventDefault(); }}
      onDoubleClick={() => focusPane(ctx, paneId, true)}
    >
      <MachineBadge paneId={paneId} />
      <span className={`pane-dot ${statusDot(pane)}`} aria-hidden="true" />
      <span className="pane-title" title={title}>{title}</span>
      {showCwd ? <span className="pane-cwd" title={cwd}>{shortPath(cwd)}</span> : null}
      {pane?.lastCommand && !exited ? <LastCommand lc={pane.lastCommand} /> : null}
      <span className="pane-header-spacer" />
      {pane?.worktree ? <WorktreeBadge wt={pane.worktree} /> : null}
      {pane?.usage ? <UsageBadge usage={pane.usage} /> : null}
      {pane?.agent ? (
        <span className={`badge agent agent-${pane.agent.status}`} title={agentTip(pane.agent, AGENT_LABEL[pane.agent.status])} data-testid="agent-status">
          <span className={`agent-dot agent-${pane.agent.status}`} aria-hidden="true" />
          {AGENT_LABEL[pane.agent.status]}
        </span>
      ) : null}
      {pane?.kind === 'tick' ? <TickHeaderParts pane={pane} /> : null}
      {pane && pane.unseen > 0 ? (
        <span className="badge unseen" title={`${pane.unseen} unseen on the bench`}>
          {pane.unseen}
          <span className="sr-only"> unseen</span>
        </span>
      ) : null}
      {exited && pane ? (
        <>
          <span className={`badge exit ${pane.ended || pane.endedBy ? 'ended' : pane.exitCode === 0 && !pane.signal ? 'ok' : 'bad'}`} role="status" data-testid="exit-status" title={pane.ended ? pane.ended.reason : undefined}>
            {exitText(pane)}
          </span>
          <button type="button" className="text-button" onClick={() => void restartPane(ctx, paneId)} aria-label={pane.ended ? 'Resume' : 'Restart'} disabled={pane.kind === 'tick' || stopped} title={stopped ? NEEDS_SERVICE : pane.kind === 'tick' ? 'A Tick cannot be restarted in its pane; open it again with Open Tick…' : pane.ended ? 'Start it again as it was (an agent picks up its session)' : 'Start the same command again in this pane'}>
            <RestartIcon />
            <span>{pane.ended ? 'Resume' : 'Restart'}</span>
          </button>
        </>
      ) : null}
      <div className="pane-actions">
        <IconButton label="Split right" tip={tip('Split right', 'split-right')} onClick={() => void splitPane(ctx, 'right', paneId)}><SplitRightIcon /></IconButton>
        <IconButton label="Split down" tip={tip('Split down', 'split-down')} onClick={() => void splitPane(ctx, 'down', paneId)}><SplitDownIcon /></IconButton>
        <IconButton
          label={pane?.benchOpen ? 'Close bench' : 'Open bench'}
          tip={tip(pane?.benchOpen ? 'Close the bench' : 'Open the bench', 'toggle-bench')}
          pressed={!!pane?.benchOpen}
          onClick={() => void toggleBench(ctx, paneId)}
        >
          <BenchIcon />
        </IconButton>
        <IconButton label="Close pane" tip={pane?.kind === 'tick' ? tickCloseTip(tip('Close pane', 'close-pane')) : tip(single ? 'Close pane (the last one)' : 'Close pane', 'close-pane')} onClick={() => void closePane(ctx, paneId)}><CloseIcon /></IconButton>
      </div>
    </header>
  );
}

function LastCommand({ lc }: { lc: NonNullable<PaneInfo['lastCommand']> }): ReactElement {
  const { text, label } = lastCommandParts(lc);
  const ref = useRef<HTMLSpanElement>(null);
  // The tooltip's time is written when the pointer comes (a window's first commit of 32 panes
  // spent ~25 ms formatting 32 times nobody had asked for: the first time format loads ICU's
  // data; docs/spec/performance.md, 2026-12-06 morning), and again when another command ends
  // under a resting pointer; not under it, the old one is dropped until the pointer comes.
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    if (el.matches(':hover')) el.title = lastCommandTitle(label, lc.at);
    else el.removeAttribute('title');
  }, [label, lc.at]);
  return (
    <span
      ref={ref}
      className={`pane-last-command ${lc.exitCode === 0 ? 'ok' : 'bad'}`}
      onPointerEnter={(e) => {
        e.currentTarget.title = lastCommandTitle(label, lc.at);
      }}
      data-testid="last-command"
    >
      <span aria-hidden="true">{text}</span>
      <span className="sr-only">{label}</span>
    </span>
  );
}

function lastCommandTitle(label: string, at: string): string {
  return `${label} (ended ${new Date(at).toLocaleTimeString()})`;
}

function IconButton({ label, tip, onClick, pressed, children }: { label: string; tip: string; onClick: () => void; pressed?: boolean; children: ReactNode }): ReactElement {
  return (
    <button
      type="button"
      className="icon-button"
      aria-label={label}
      title={tip}
      aria-pressed={pressed === undefined ? undefined : pressed}
      onClick={onClick}
      onMouseDown={(e) => e.preventDefault() /* keep keyboard focus in the terminal */}
    >
      {children}
    </button>
  );
}

/** The running agent session's tokens and cost (main/usage), the detail as its tooltip. */
function UsageBadge({ usage }: { usage: NonNullable<PaneInfo['usage']> }): ReactElement {
  const b = usageBadge(usage);
  return <span className="badge usage" title={b.title} data-testid="usage">{b.text}</span>;
}

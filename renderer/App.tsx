/** The window: a thin title bar, the panes, and short notices. */
import { useEffect, useRef, type ReactElement } from 'react';
import { commandWanted, cycleTheme, focusPane, runCommand, splitPane } from './commands.ts';
import { doorTheme } from './first-paint/door-theme.ts';
import { useWindow, useWindowState } from './context.ts';
import { commandForKey, isDeleteWord, shortcutLabel } from './keys.ts';
import { LayoutNode } from './panes/LayoutView.tsx';
import { leafIds } from './panes/layout.ts';
import { useReportArea } from './panes/useReportArea.ts';
import { ChartIcon, GearIcon, MoonIcon, SunIcon, SystemThemeIcon, TerminalIcon } from './panes/icons.tsx';
import { resolvedTheme, totalUnseen } from './store/store.ts';
import { AgentsBar } from './agents/AgentsBar.tsx';
import { OpenTickDialog } from './agents/OpenTickDialog.tsx';
import { AgentPicker } from './agents/AgentPicker.tsx';
import { WorktreeDialog } from './agents/WorktreeDialog.tsx';
import { QuitDialog } from './service/QuitDialog.tsx';
import { ServiceBar } from './service/ServiceBar.tsx';
import { StoppedBar } from './service/StoppedBar.tsx';
import { serviceUi } from './service/ui.ts';
import { useStore } from 'zustand';
import './service/service.css';
import { SettingsDialog } from './settings/SettingsDialog.tsx';
import { MachineDialog } from './machines/MachineDialog.tsx';
import { MachinesBar } from './machines/MachinesBar.tsx';
import { SearchPalette } from './search/SearchPalette.tsx';
import { UsageView } from './usage/UsageView.tsx';
import { showUsage } from './usage/ui.ts';
import { showSettings } from './settings/ui.ts';

export function App(): ReactElement {
  const ctx = useWindow();
  const ready = useWindowState((s) => s.ready);
  const error = useWindowState((s) => s.error);
  const layout = useWindowState((s) => s.layout);
  const theme = useWindowState(resolvedTheme);
  const dragging = useWindowState((s) => s.dragging);
  const platform = useWindowState((s) => s.platform);
  const workspace = useRef<HTMLElement>(null);
  useReportArea(workspace);
  const stopped = useStore(serviceUi, (s) => s.stopped !== null);

  // A theme the door put on the page (from the settings it knows) stays until this window knows them too.
  useEffect(() => {
    if (ready || !doorTheme) document.documentElement.dataset.theme = theme;
  }, [theme, ready]);

  // A pane gone (its ×, its program's exit, another window) takes the keyboard with it when it
  // had it: the focused pane's terminal takes it, so keys go where the focus ring is.
  useEffect(() => {
    const active = document.activeElement;
    if (active && active !== document.body && active.isConnected) return;
    const focused = ctx.store.getState().focused;
    if (focused && leafIds(layout).includes(focused)) focusPane(ctx, focused, true);
  }, [ctx, layout]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (isDeleteWord(e, platform)) {
        // xterm sends it on (and keeps it from the browser); a field keeps it; anywhere else it goes
        // to the focused pane's terminal, never to the browser or Electron to close the window.
        const t = e.target as HTMLElement | null;
        if (t?.classList.contains('xterm-helper-textarea')) return;
        e.preventDefault();
        if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.isContentEditable)) return;
        const focused = ctx.store.getState().focused;
        if (!focused) return;
        focusPane(ctx, focused, true);
        ctx.api.invoke('pane.input', { paneId: focused, data: '\x17' }).catch(() => undefined);
        return;
      }
      const cmd = commandForKey(e, platform);
      if (!cmd) return;
      const t = e.target as HTMLElement | null;
      const inField = !!t && (t.tagName === 'INPUT' || (t.tagName === 'TEXTAREA' && !t.classList.contains('xterm-helper-textarea')));
      if (inField && (cmd === 'copy' || cmd === 'paste' || cmd === 'prompt-prev' || cmd === 'prompt-next')) return;
      if (!commandWanted(ctx, cmd)) return;
      e.preventDefault();
      e.stopPropagation();
      if (ctx.dedupe.accept(cmd, 'key')) runCommand(ctx, cmd);
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [ctx, platform]);

  return (
    <div className={`app${dragging ? ' dragging' : ''}`}>
      <TitleBar />
      <StoppedBar />
      {ready ? <ServiceBar /> : null}
      <main className="workspace" ref={workspace}>
        {stopped && !ready ? (
          <div className="empty-state" role="status">
            <p className="empty-title">Terminal Delight's service is stopped</p>
            <p className="empty-detail">Start it with Start the service above (or <code>terminal-delight service start</code>): your panes come back where they were.</p>
          </div>
        ) : error && !ready ? (
          <div className="empty-state" role="alert">
            <p className="empty-title">Terminal Delight could not start this window</p>
            <p className="empty-detail">{error}</p>
          </div>
        ) : !ready ? (
          <div className="empty-state" aria-busy="true"><p className="empty-detail">Connecting…</p></div>
        ) : layout ? (
          <LayoutNode node={layout} path={[]} />
        ) : (
          <div className="empty-state">
            <p className="empty-title">No panes open</p>
            <button type="button" className="text-button primary" onClick={() => void splitPane(ctx, 'right')}>
              <TerminalIcon /><span>New pane</span>
            </button>
          </div>
        )}
      </main>
      <Notices />
      <OpenTickDialog />
      <AgentPicker />
      <WorktreeDialog />
      <QuitDialog />
      <SettingsDialog />
      <MachineDialog />
      <SearchPalette />
      <UsageView />
    </div>
  );
}

function TitleBar(): ReactElement {
  const unseen = useWindowState(totalUnseen);
  const connection = useWindowState((s) => s.connection);
  const shell = useWindowState((s) => s.shell);
  const count = useWindowState((s) => leafIds(s.layout).length);
  // Stopped on purpose: the bar under the title says so (service/StoppedBar.tsx), not "retrying".
  const stopped = useStore(serviceUi, (s) => s.stopped !== null);
  useEffect(() => {
    document.title = unseen > 0 ? `(${unseen}) Terminal Delight` : 'Terminal Delight';
  }, [unseen]);
  return (
    <div className="titlebar">
      <img className="app-icon" src="./icon.svg" alt="" width={16} height={16} />
      <span className="app-name">Terminal Delight</span>
      {/* Stopped on purpose, the panes were ended by the stop (or are not known, after a reload): no count. */}
      {stopped ? null : <span className="titlebar-dim">{count === 1 ? '1 pane' : `${count} panes`}</span>}
      <span className="titlebar-spacer" />
      <AgentsBar />
      <MachinesBar />
      {connection !== 'open' && shell === 'serve' && !stopped ? (
        <span className="badge warn" role="status">{connection === 'connecting' ? 'Connecting…' : 'Disconnected, retrying…'}</span>
      ) : null}
      <ThemeButton />
      <UsageButton />
      <SettingsButton />
      <span className={`badge unseen-total${unseen > 0 ? '' : ' zero'}`} title="Unseen surfaces across all panes" data-testid="unseen-total">
        {unseen > 0 ? <>{unseen}{' '}<span className="titlebar-wide">unseen</span></> : 'all seen'}
      </span>
    </div>
  );
}

function UsageButton(): ReactElement {
  const platform = useWindowState((s) => s.platform);
  return (
    <button
      type="button"
      className="icon-button titlebar-button"
      aria-label="Usage"
      title={`Usage: tokens and cost of the agents (${shortcutLabel('show-usage', platform)})`}
      data-testid="open-usage"
      onClick={() => showUsage()}
    >
      <ChartIcon />
    </button>
  );
}

function SettingsButton(): ReactElement {
  const platform = useWindowState((s) => s.platform);
  const problem = useWindowState((s) => s.settingsProblem);
  return (
    <button
      type="button"
      className={`icon-button titlebar-button${problem ? ' has-problem' : ''}`}
      aria-label={problem ? 'Settings (settings.json had a problem)' : 'Settings'}
      title={`Settings (${shortcutLabel('open-settings', platform)})`}
      data-testid="open-settings"
      onClick={() => showSettings()}
    >
      <GearIcon />
    </button>
  );
}

const THEME_LABEL = { system: 'System theme', light: 'Light theme', dark: 'Dark theme' } as const;

function ThemeButton(): ReactElement {
  const ctx = useWindow();
  const theme = useWindowState((s) => s.settings.theme);
  return (
    <button
      type="button"
      className="icon-button titlebar-button"
      aria-label={THEME_LABEL[theme]}
      title={`${THEME_LABEL[theme]} (click to change)`}
      data-theme-setting={theme}
      onClick={() => void cycleTheme(ctx)}
    >
      {theme === 'light' ? <SunIcon /> : theme === 'dark' ? <MoonIcon /> : <SystemThemeIcon />}
    </button>
  );
}

function Notices(): ReactElement | null {
  const notices = useWindowState((s) => s.notices);
  const { store } = useWindow();
  useEffect(() => {
    if (notices.length === 0) return;
    const timers = notices.map((n) => setTimeout(() => store.getState().dismissNotice(n.id), n.tone === 'error' ? 8000 : 5000));
    return () => timers.forEach(clearTimeout);
  }, [notices, store]);
  if (notices.length === 0) return null;
  return (
    <div className="notices" role="status" aria-live="polite">
      {notices.map((n) => (
        <div key={n.id} className={`notice ${n.tone}`}>
          <span>{n.text}</span>
          <button type="button" className="icon-button" aria-label="Dismiss" onClick={() => store.getState().dismissNotice(n.id)}>×</button>
        </div>
      ))}
    </div>
  );
}

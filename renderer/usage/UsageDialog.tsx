/**
 * The Usage view's dialog (a chunk of its own, with chart.js: UsageView.tsx loads it): tokens in, out and cached, and cost,
 * of every agent session the service has read (`usage.summary`): stacked bars by day, an
 * agent a stack, and a table by agent session, pane, worktree, agent or day. A model is
 * priced by its name less a release date (`-20250929`, Vertex AI's `@20250929`); one the
 * price file does not list is counted in tokens only, and the row says so. Each agent
 * message is counted once, also when a resumed session's file has it again (the service
 * keeps every counted message id: main/usage/transcripts.ts); a transcript replaced or cut
 * short is counted again from its start, its old counts dropped (main/usage/service.ts). The
 * service reads at most 8 MiB a look: after an upgrade, old sessions fill in over the next
 * asks.
 */
import { useEffect, useMemo, useState, type ReactElement } from 'react';
import type { UsageSummary } from '../../preload/contract.ts';
import { groupUsage, money, tokens, totalTokens, usageBars, type UsageBy } from '../../common/usage.ts';
import { useWindow, useWindowState } from '../context.ts';
import { resolvedTheme } from '../store/store.ts';
import { ModalForm } from '../agents/ModalForm.tsx';
import { UsageChart } from './UsageChart.tsx';
import { hideUsage } from './ui.ts';
import './usage.css';

const BY: Array<[UsageBy, string]> = [['session', 'Agent session'], ['pane', 'Pane'], ['worktree', 'Worktree'], ['agent', 'Agent'], ['day', 'Day']];

export default function UsageDialog(): ReactElement {
  const ctx = useWindow();
  const theme = useWindowState(resolvedTheme);
  const [summary, setSummary] = useState<UsageSummary | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [by, setBy] = useState<UsageBy>('session');
  const [measure, setMeasure] = useState<'cost' | 'tokens'>('cost');
  const [since, setSince] = useState('');

  // Asked on opening and every 5 s while open (sessions go on as it shows).
  useEffect(() => {
    let live = true;
    const ask = (): void => {
      ctx.api.invoke('usage.summary', since ? { since } : {}).then((r) => {
        if (!live) return;
        if (r.ok) {
          setSummary(r.summary);
          setError(null);
        } else setError(r.error);
      }, (e: unknown) => live && setError(e instanceof Error ? e.message : String(e)));
    };
    ask();
    const t = setInterval(ask, 5000);
    return () => {
      live = false;
      clearInterval(t);
    };
  }, [ctx, since]);

  const rows = useMemo(() => summary?.rows ?? [], [summary]);
  const groups = useMemo(() => groupUsage(rows, by), [rows, by]);
  const bars = useMemo(() => usageBars(rows, measure), [rows, measure]);
  const all = useMemo(() => groupUsage(rows.map((r) => ({ ...r, day: '' })), 'day')[0], [rows]);
  const currency = summary?.currency ?? 'USD';
  const close = (): void => {
    hideUsage();
  };
  const chartLabel = `${measure === 'cost' ? 'Cost' : 'Tokens'} by day and agent: ${bars.days.map((d, i) => `${d} ${bars.stacks.map((s) => `${s.agent} ${measure === 'cost' ? money(s.values[i]!, currency) : tokens(s.values[i]!)}`).join(', ')}`).join('; ')}`;

  return (
    <ModalForm className="td-usage" labelledBy="td-usage-title" busy={false} onClose={close} onSubmit={(e) => e.preventDefault()}>
      <div className="td-usage-head">
        <h2 id="td-usage-title">Usage</h2>
        {all && (
          <span className="td-usage-total" data-testid="usage-total">
            {tokens(totalTokens(all))} tokens{all.cost !== undefined ? ` · ${money(all.cost, currency)}` : ''}
          </span>
        )}
        <button type="button" className="text-button td-usage-close" onClick={close}>Close</button>
      </div>
      <div className="td-usage-controls">
        <label>Chart
          <select value={measure} onChange={(e) => setMeasure(e.target.value as 'cost' | 'tokens')}>
            <option value="cost">Cost</option>
            <option value="tokens">Tokens</option>
          </select>
        </label>
        <label>Table by
          <select value={by} onChange={(e) => setBy(e.target.value as UsageBy)}>
            {BY.map(([v, label]) => <option key={v} value={v}>{label}</option>)}
          </select>
        </label>
        <label>Since
          <input type="date" value={since} onChange={(e) => setSince(e.target.value)} />
        </label>
      </div>
      {error && <p className="td-usage-error" role="alert">{error}</p>}
      {summary && rows.length === 0 ? (
        <p className="td-usage-empty">No agent usage read yet: an agent's tokens are read from its transcript as it works in a pane.</p>
      ) : (
        <UsageChart bars={bars} measure={measure} currency={currency} theme={theme} label={chartLabel} />
      )}
      {rows.length > 0 && (
        <div className="td-usage-table-wrap">
          <table className="td-usage-table" aria-label={`Usage by ${BY.find(([v]) => v === by)![1].toLowerCase()}`}>
            <thead>
              <tr>
                <th scope="col">{BY.find(([v]) => v === by)![1]}</th>
                {by !== 'agent' && <th scope="col">Agent</th>}
                <th scope="col" className="num">Input</th>
                <th scope="col" className="num">Output</th>
                <th scope="col" className="num">Cache read</th>
                <th scope="col" className="num">Cache write</th>
                <th scope="col" className="num">Cost</th>
              </tr>
            </thead>
            <tbody>
              {groups.map((g) => (
                <tr key={g.key} data-usage-key={g.key}>
                  <th scope="row" className="td-usage-label" title={g.label}>{g.label}</th>
                  {by !== 'agent' && <td>{g.agents.join(', ')}</td>}
                  <td className="num">{g.input.toLocaleString('en')}</td>
                  <td className="num">{g.output.toLocaleString('en')}</td>
                  <td className="num">{g.cacheRead.toLocaleString('en')}</td>
                  <td className="num">{g.cacheWrite.toLocaleString('en')}</td>
                  <td className="num td-usage-cost" data-cost={g.cost ?? ''}>
                    {g.cost !== undefined ? money(g.cost, currency) : ''}
                    {g.unpriced.length > 0 && <span className="td-usage-unpriced">{g.cost !== undefined ? ' + ' : ''}tokens only: no price for {g.unpriced.join(', ')}</span>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p className="td-usage-foot">
        Prices of {summary?.pricesDate ?? '…'} (assets/prices, per million tokens, {currency}); a model the file does not list is counted in tokens only. Also: <code>terminal-delight usage</code>.
      </p>
    </ModalForm>
  );
}

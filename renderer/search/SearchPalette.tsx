/**
 * Search everything (Ctrl+Shift+F): a palette over the search index (main/search). Results
 * come as you type, grouped by pane (its title and agent), newest first, with the time and
 * the matching words marked; filters narrow by kind, agent, machine (when others are
 * connected: every machine, this one, or one of them), folder and date. Arrow keys
 * move through the results, Enter goes there (jump.ts), Escape closes.
 */
import { useEffect, useMemo, useRef, useState, type ReactElement } from 'react';
import { useStore } from 'zustand';
import { SEARCH_PREFIX_MIN, type SearchHit, type SearchQuery } from '../../preload/contract.ts';
import { useWindow, useWindowState } from '../context.ts';
import { ModalForm } from '../agents/ModalForm.tsx';
import { groupHits, markedParts, shortLast, when, withoutMarkdown, type GroupBy } from './group.ts';
import { AGENT_LABELS } from '../agents/labels.ts';
import { jumpTo } from './jump.ts';
import { headerTitle } from '../../common/header-text.ts';
import { sinceTime } from '../../common/since.ts';
import { hideSearch, searchUi } from './ui.ts';
import { machinesUi } from '../machines/ui.ts';
import './search.css';

const KINDS: Array<[NonNullable<SearchQuery['kind']> | '', string]> = [
  ['', 'Everything'], ['output', 'Output'], ['command', 'Commands'], ['failed', 'Failed commands'],
  ['prompt', 'Prompts'], ['reply', 'Replies'], ['tool', 'Tool runs'], ['decision', 'Decisions'], ['surface', 'Cards'], ['tick', 'Tick calls'],
];
const AGENTS = ['', 'claude', 'codex', 'gemini', 'opencode'];
const KIND_LABEL: Record<SearchHit['kind'], string> = { output: 'output', command: 'command', prompt: 'prompt', reply: 'reply', tool: 'tool', surface: 'card', decision: 'decision', tick: 'Tick call' };

export function SearchPalette(): ReactElement | null {
  const open = useStore(searchUi, (s) => s.open);
  const n = useStore(searchUi, (s) => s.n);
  if (!open) return null;
  return <Palette n={n} />;
}

function Palette({ n }: { n: number }): ReactElement {
  const ctx = useWindow();
  const panes = useWindowState((s) => s.panes);
  const [query, setQuery] = useState('');
  const [kind, setKind] = useState<SearchQuery['kind'] | ''>('');
  const [agent, setAgent] = useState('');
  const [folder, setFolder] = useState('');
  const [since, setSince] = useState('');
  // '*': this machine and every connected one; '': this machine; else a machine's name.
  const [machine, setMachine] = useState('*');
  const machines = useStore(machinesUi, (s) => s.machines);
  const far = machines.length > 0;
  const [hits, setHits] = useState<SearchHit[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState(0);
  const groupBy = useStore(searchUi, (s) => s.groupBy);
  const input = useRef<HTMLInputElement>(null);
  const list = useRef<HTMLDivElement>(null);

  useEffect(() => input.current?.focus(), [n]);

  // Results as you type: asked a moment after the last key, the newest answer wins.
  useEffect(() => {
    if (!/[\p{L}\p{N}]/u.test(query)) {
      setHits([]);
      setError(null);
      return;
    }
    let live = true;
    const t = setTimeout(() => {
      const q: SearchQuery = { query, limit: 100, ...(kind ? { kind } : {}), ...(agent ? { agent } : {}), ...(folder.trim() ? { folder: folder.trim() } : {}), ...(since && !Number.isNaN(sinceTime(since)) ? { since: new Date(sinceTime(since)).toISOString() } : {}), ...(far && machine ? { machine } : {}) };
      ctx.api.invoke('search.query', q).then((r) => {
        if (!live) return;
        if (r.ok) {
          setHits(r.hits);
          setError(null);
        } else setError(r.error);
        setSelected(0);
      }, (e: unknown) => live && setError(e instanceof Error ? e.message : String(e)));
    }, 120);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [ctx, query, kind, agent, folder, since, far, machine]);

  const groups = useMemo(() => groupHits(hits, groupBy), [hits, groupBy]);
  const order = useMemo(() => groups.flatMap((g) => g.hits), [groups]);

  useEffect(() => {
    list.current?.querySelector<HTMLElement>('[aria-selected="true"]')?.scrollIntoView({ block: 'nearest' });
  }, [selected]);

  const close = (): void => {
    hideSearch();
  };
  const go = (hit: SearchHit | undefined): void => {
    if (!hit) return;
    hideSearch();
    void jumpTo(ctx, hit);
  };

  return (
    <ModalForm className="td-search" labelledBy="td-search-title" busy={false} onClose={close} onSubmit={(e) => { e.preventDefault(); go(order[selected]); }}>
      <h2 id="td-search-title" className="visually-hidden">Search everything</h2>
      <input
        ref={input}
        className="td-search-input"
        type="search"
        placeholder="Search output, commands, prompts, replies, decisions…"
        aria-label="Search everything"
        aria-controls="td-search-results"
        autoComplete="off"
        spellCheck={false}
        value={query}
        onChange={(e) => setQuery(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            // The form has more than one field: Enter in this one does not submit it by itself.
            e.preventDefault();
            go(order[selected]);
          } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
            e.preventDefault();
            setSelected((i) => Math.max(0, Math.min(order.length - 1, i + (e.key === 'ArrowDown' ? 1 : -1))));
          }
        }}
      />
      <div className="td-search-filters">
        <select aria-label="Kind" value={kind} onChange={(e) => setKind(e.target.value as SearchQuery['kind'] | '')}>
          {KINDS.map(([v, label]) => <option key={v} value={v}>{label}</option>)}
        </select>
        <select aria-label="Agent" value={agent} onChange={(e) => setAgent(e.target.value)}>
          {AGENTS.map((a) => <option key={a} value={a}>{a || 'Any agent'}</option>)}
        </select>
        {far && (
          <select aria-label="Machine" value={machine} onChange={(e) => setMachine(e.target.value)}>
            <option value="*">Every machine</option>
            <option value="">This machine</option>
            {machines.map((m) => <option key={m.name} value={m.name} disabled={m.state !== 'connected'}>{m.name}{m.state !== 'connected' ? ` (${m.state})` : ''}</option>)}
          </select>
        )}
        <input aria-label="Folder" placeholder="Folder" value={folder} onChange={(e) => setFolder(e.target.value)} />
        <label className="td-search-group-by">
          Group
          <select value={groupBy} onChange={(e) => { searchUi.setState({ groupBy: e.target.value as GroupBy }); setSelected(0); }}>
            <option value="pane">by pane</option>
            <option value="agent">by agent</option>
            <option value="day">by day</option>
          </select>
        </label>
        <label className="td-search-since">
          Since
          <input type="date" value={since} onChange={(e) => setSince(e.target.value)} />
        </label>
      </div>
      {error && <p className="td-search-error" role="alert">{error}</p>}
      <div id="td-search-results" ref={list} className="td-search-results" role="listbox" aria-label="Results">
        {groups.map((g) => {
          const pane = g.paneId !== undefined ? panes[g.paneId] : undefined;
          // The pane's name as its header says it (an agent's spinner glyph left out).
          const name = pane ? headerTitle(pane).title : undefined;
          const label = g.paneId !== undefined ? (name ?? g.paneId) : g.day ?? (g.agent ? (AGENT_LABELS[g.agent] ?? g.agent) : 'No agent');
          return (
            <div key={g.key} className="td-search-group" role="group" aria-label={label}>
              {g.paneId !== undefined ? (
                <div className="td-search-group-head">
                  <span className="td-search-pane">{name ?? 'closed pane'}</span>
                  {g.agent && <span className="td-search-agent">{g.agent}</span>}
                  <span className="td-search-id">{g.paneId}{pane && pane.status !== 'running' ? ' · ended' : ''}</span>
                </div>
              ) : (
                <div className="td-search-group-head">
                  <span className="td-search-pane">{label}</span>
                  <span className="td-search-id">{g.hits.length === 1 ? '1 hit' : `${g.hits.length} hits`}</span>
                </div>
              )}
              {g.hits.map((h) => {
                const i = order.indexOf(h);
                return (
                  <div
                    key={h.id}
                    className={`td-search-hit${g.paneId === undefined ? ' with-pane' : ''}`}
                    role="option"
                    aria-selected={i === selected}
                    data-hit-id={h.id}
                    onPointerMove={() => setSelected(i)}
                    onClick={() => go(h)}
                  >
                    <span className="td-search-when">{when(h.at)}</span>
                    <span className={`td-search-kind${h.kind === 'command' && h.exitCode ? ' failed' : ''}`}>{KIND_LABEL[h.kind]}{h.kind === 'command' && h.exitCode !== undefined ? ` ${h.exitCode}` : ''}</span>
                    {g.paneId === undefined && <span className="td-search-where" title={h.paneId}>{panes[h.paneId] ? headerTitle(panes[h.paneId]!).title : h.paneId}{g.day !== undefined && h.agent ? ` · ${h.agent}` : ''}</span>}
                    <span className="td-search-text">{markedParts(withoutMarkdown(h)).map((p, k) => (p.match ? <mark key={k}>{p.text}</mark> : <span key={k}>{p.text}</span>))}</span>
                  </div>
                );
              })}
            </div>
          );
        })}
        {query && !error && hits.length === 0 && (
          <p className="td-search-empty">
            {shortLast(query) ? `Nothing found yet: a last word of fewer than ${SEARCH_PREFIX_MIN} letters matches whole words only; type on to find words that begin with it.` : 'Nothing found yet.'}
          </p>
        )}
      </div>
      <p className="td-search-foot">↑↓ to move · Enter to go there · Esc to close</p>
    </ModalForm>
  );
}

/** Find in a pane's terminal (addon-search): Enter next, Shift+Enter previous, Escape closes. */
import { useEffect, useRef, useState, type ReactElement } from 'react';
import { useWindow } from '../context.ts';
import { ArrowDownIcon, ArrowUpIcon, CloseIcon } from './icons.tsx';

export function FindBar({ paneId }: { paneId: string }): ReactElement {
  const { terminals, store } = useWindow();
  const input = useRef<HTMLInputElement>(null);
  const [text, setText] = useState('');
  const [caseSensitive, setCaseSensitive] = useState(false);
  const [result, setResult] = useState<{ index: number; count: number } | null>(null);

  useEffect(() => {
    input.current?.focus();
    input.current?.select();
    const session = terminals.get(paneId);
    let sub: { dispose(): void } | undefined;
    let gone = false;
    // addon-search is loaded on the first find bar opened (its own chunk).
    void session?.loadSearch().then((search) => {
      if (!gone) sub = search.onDidChangeResults((r) => setResult({ index: r.resultIndex, count: r.resultCount }));
    });
    return () => {
      gone = true;
      sub?.dispose();
      terminals.get(paneId)?.clearFind();
    };
  }, [terminals, paneId]);

  const find = (backwards: boolean, value = text, incremental = false): void => {
    const session = terminals.get(paneId);
    if (!session) return;
    if (!value) {
      session.clearFind();
      setResult(null);
      return;
    }
    void session.find(value, backwards, { caseSensitive, incremental }).then((found) => {
      if (!found) setResult({ index: -1, count: 0 });
    });
  };

  const label = !text || !result ? '' : result.count === 0 ? 'No results' : result.index < 0 ? `${result.count}+` : `${result.index + 1} of ${result.count}`;

  return (
    <div className="find-bar" role="search" aria-label="Find in terminal">
      <input
        ref={input}
        type="text"
        value={text}
        placeholder="Find"
        aria-label="Find"
        spellCheck={false}
        onChange={(e) => {
          setText(e.target.value);
          find(false, e.target.value, true);
        }}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            find(e.shiftKey);
          } else if (e.key === 'Escape') {
            e.preventDefault();
            store.getState().closeFind();
          }
        }}
      />
      <span className="find-count" aria-live="polite">{label}</span>
      <button type="button" className={`icon-button text-toggle${caseSensitive ? ' on' : ''}`} aria-pressed={caseSensitive} aria-label="Match case" title="Match case" onClick={() => { setCaseSensitive(!caseSensitive); }}>Aa</button>
      <button type="button" className="icon-button" aria-label="Previous match" title="Previous match (Shift+Enter)" onClick={() => find(true)}><ArrowUpIcon /></button>
      <button type="button" className="icon-button" aria-label="Next match" title="Next match (Enter)" onClick={() => find(false)}><ArrowDownIcon /></button>
      <button type="button" className="icon-button" aria-label="Close find" title="Close (Escape)" onClick={() => store.getState().closeFind()}><CloseIcon /></button>
    </div>
  );
}

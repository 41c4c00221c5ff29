/**
 * The phone: pairing when the device holds no credential, else two tabs: the Inbox (every
 * card waiting for you across panes, answered with a tap and an optional comment) and
 * Agents (each agent's status and last lines).
 */
import { useEffect, useRef, useState } from 'react';
import { DEVICE_KEYS } from '../../common/device-keys.ts';
import { folderAfter } from '../../common/header-text.ts';
import { shownSentence } from '../../common/sentence.ts';
import { Screen, type Shot } from './Screen.tsx';
import { act, connect, notifySettings, pair, pushPossible, subscribePush, typeInto, whoAmI, type AgentRow, type DeviceSocket, type InboxCard, type NotifySettings } from './api.ts';

type Who = { state: 'asking' } | { state: 'unpaired'; why?: string } | { state: 'paired'; name: string };

export function PhoneApp({ secret }: { secret?: string }) {
  const [who, setWho] = useState<Who>({ state: 'asking' });
  const [cards, setCards] = useState<InboxCard[] | undefined>();
  const [agents, setAgents] = useState<AgentRow[]>([]);
  const [live, setLive] = useState(false);
  const [tab, setTab] = useState<'inbox' | 'agents'>('inbox');
  const [screen, setScreen] = useState<{ paneId: string; shot?: Shot; error?: string } | null>(null);
  const socket = useRef<DeviceSocket | undefined>(undefined);

  useEffect(() => {
    void whoAmI().then((r) => setWho('name' in r ? { state: 'paired', name: r.name } : { state: 'unpaired' }), () => setWho({ state: 'unpaired', why: 'the door cannot be reached: check the address, then reload' }));
  }, []);

  useEffect(() => {
    if (who.state !== 'paired') return;
    const s = connect({
      inbox: setCards,
      agents: setAgents,
      live: setLive,
      revoked: (why) => {
        setCards(undefined);
        setScreen(null);
        setWho({ state: 'unpaired', why });
      },
      screen: (paneId, shot, error) => setScreen((cur) => (cur?.paneId === paneId ? { paneId, shot, error } : cur)),
    });
    socket.current = s;
    return () => s.close();
  }, [who.state]);
  const [large, setLarge] = useState(() => readLarge());
  const toggleLarge = (): void => {
    setLarge(!large);
    try {
      localStorage.setItem(LARGE_KEY, large ? '0' : '1');
    } catch {
      // storage refused (a private tab): the choice lasts this page
    }
  };
  const openTerminal = (paneId: string | null): void => {
    setScreen(paneId ? { paneId } : null);
    socket.current?.watch(paneId);
  };

  if (who.state === 'asking') return <main className="phone" aria-busy="true" />;
  if (who.state === 'unpaired') return <Pairing secret={secret} why={who.why} onPaired={(name) => setWho({ state: 'paired', name })} />;
  const waiting = cards?.length ?? 0;
  if (screen) {
    const a = agents.find((x) => x.paneId === screen.paneId);
    return (
      <main className="phone">
        <header className="phone-top">
          <button className="phone-back" onClick={() => openTerminal(null)} aria-label="Back to the agents">‹ Agents</button>
          <span className="phone-top-end">
            <span className="phone-live on"><MachineBadge machine={a?.machine} colour={a?.machineColour} />{a ? `${a.agent} · ${a.status === 'blocked' ? 'needs you' : a.status}` : ''}</span>
            <button className="phone-textsize" aria-pressed={large} aria-label="Larger text" title="Larger text: the lines scroll sideways" onClick={toggleLarge}><span aria-hidden="true">A</span><span className="big" aria-hidden="true">A</span></button>
          </span>
        </header>
        <section className="phone-body phone-terminal" aria-label={`Terminal of ${a?.title ?? 'the agent'}`}>
          {screen.error ? <PhoneError text={screen.error} /> : screen.shot ? <Screen key={screen.paneId} shot={screen.shot} large={large} label={`Terminal of ${a?.title ?? 'the agent'}`} /> : <p className="phone-empty">Loading…</p>}
        </section>
        <Typing paneId={screen.paneId} />
      </main>
    );
  }
  return (
    <main className="phone">
      <header className="phone-top">
        <h1>{tab === 'inbox' ? 'Inbox' : 'Agents'}</h1>
        <span className={`phone-live${live ? ' on' : ''}`} role="status">{live ? who.name : 'reconnecting…'}</span>
      </header>
      <section className="phone-body" aria-label={tab === 'inbox' ? 'Inbox' : 'Agents'}>
        {tab === 'inbox' ? <Inbox cards={cards} /> : <><Agents agents={agents} open={(id) => openTerminal(id)} /><Notifications /></>}
      </section>
      <nav className="phone-tabs" role="tablist">
        <button role="tab" aria-selected={tab === 'inbox'} onClick={() => setTab('inbox')}>
          Inbox{waiting > 0 ? <span className="phone-count">{waiting}</span> : null}
        </button>
        <button role="tab" aria-selected={tab === 'agents'} onClick={() => setTab('agents')}>
          Agents{agents.some((a) => a.status === 'blocked') ? <span className="phone-count warn">!</span> : null}
        </button>
      </nav>
    </main>
  );
}

/** Where this phone keeps "Larger text" for its terminals. */
const LARGE_KEY = 'td-phone-larger-text';

function readLarge(): boolean {
  try {
    return localStorage.getItem(LARGE_KEY) === '1';
  } catch {
    return false;
  }
}

function Pairing({ secret, why, onPaired }: { secret?: string; why?: string; onPaired: (name: string) => void }) {
  const [code, setCode] = useState('');
  const [name, setName] = useState(defaultName());
  const [error, setError] = useState<string | undefined>(why);
  const [busy, setBusy] = useState(false);
  const submit = async (e: React.FormEvent): Promise<void> => {
    e.preventDefault();
    setBusy(true);
    const r = await pair(secret ? { secret } : { code }, name).catch((err: Error) => ({ ok: false as const, error: err.message }));
    setBusy(false);
    if (r.ok) onPaired(r.name);
    else setError(r.error);
  };
  return (
    <main className="phone">
      <form className="phone-pair" onSubmit={(e) => void submit(e)}>
        <img src="/icon.svg" alt="" width={72} height={72} />
        <h1>Pair this device</h1>
        <p>{secret ? 'You scanned the code the desktop shows. Name this device and pair it.' : 'Type the code the desktop shows (Pair a device, or terminal-delight devices pair).'}</p>
        {secret ? null : (
          <label>
            Code
            <input value={code} onChange={(e) => setCode(e.target.value)} autoCapitalize="characters" autoComplete="one-time-code" spellCheck={false} placeholder="ABCD EFGH" required />
          </label>
        )}
        <label>
          This device's name
          <input value={name} onChange={(e) => setName(e.target.value)} maxLength={60} required />
        </label>
        {error ? <PhoneError text={error} /> : null}
        <button className="phone-primary" type="submit" disabled={busy}>{busy ? 'Pairing…' : 'Pair'}</button>
      </form>
    </main>
  );
}

function defaultName(): string {
  const ua = navigator.userAgent;
  return /iPhone/.test(ua) ? 'iPhone' : /iPad/.test(ua) ? 'iPad' : /Android/.test(ua) ? 'Android phone' : 'Browser';
}

/**
 * "Notify me": offered only where push can work, that is where the browser took the service
 * worker (it refuses one on a page whose certificate it does not trust), until subscribed.
 */
function NotifyMe() {
  const [possible, setPossible] = useState(false);
  const [asked, setAsked] = useState<string | undefined>();
  useEffect(() => {
    if (pushPossible()) void navigator.serviceWorker.getRegistration('/').then((reg) => setPossible(!!reg), () => undefined);
  }, []);
  if (!possible || asked === 'on') return null;
  return (
    <div className="phone-notify">
      <button onClick={() => void subscribePush().then((r) => setAsked(r.ok ? 'on' : r.error), (e: Error) => setAsked(e.message))}>Notify me when an agent asks</button>
      {asked ? <PhoneError text={asked} /> : null}
    </div>
  );
}

function Inbox({ cards }: { cards: InboxCard[] | undefined }) {
  if (!cards) return <p className="phone-empty">Loading…</p>;
  return (
    <>
      <NotifyMe />
      {cards.length === 0 ? <p className="phone-empty">Nothing waits for you. Cards your agents send appear here.</p> : (
        <ul className="phone-cards">
          {cards.map((c) => <Card key={`${c.paneId}/${c.surfaceId}`} card={c} />)}
        </ul>
      )}
    </>
  );
}

const KIND_LABEL: Record<InboxCard['kind'], string> = { permission: 'Permission', question: 'Question', decision: 'Decision', change: 'Change' };

function Card({ card }: { card: InboxCard }) {
  const [comment, setComment] = useState('');
  const [commenting, setCommenting] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const send = async (action: string, target?: string): Promise<void> => {
    setBusy(true);
    setError(undefined);
    const r = await act(card, action, target, comment).catch((e: Error) => ({ ok: false as const, error: e.message }));
    setBusy(false);
    // Answered: the card leaves with the next inbox the door pushes.
    if (!r.ok) setError(r.error);
  };
  return (
    <li className={`phone-card kind-${card.kind}`} aria-label={card.title}>
      <div className="phone-card-head">
        <span className="phone-kind">{KIND_LABEL[card.kind]}</span>
        <span className="phone-when">{ago(card.arrivedAt)}</span>
      </div>
      <h2>{card.title}</h2>
      {card.text ? <p className="phone-text">{card.text}</p> : null}
      <p className="phone-meta">
        <MachineBadge machine={card.machine} colour={card.machineColour} />
        {card.agent} · {card.pane}
        <Folder title={card.pane} folder={card.folder} />
      </p>
      {commenting ? (
        <textarea value={comment} onChange={(e) => setComment(e.target.value)} rows={3} placeholder={card.kind === 'question' ? 'Your answer, or a comment with a choice' : 'A comment goes with your answer'} aria-label="Comment" />
      ) : null}
      {error ? <PhoneError text={error} /> : null}
      <div className="phone-buttons">
        {card.buttons.map((b) => (
          <button key={`${b.action}:${b.target ?? ''}`} disabled={busy} className={b.target === 'deny' || b.action === 'reject' ? 'deny' : b.target === 'allow' || b.action === 'approve' ? 'approve' : ''} onClick={() => void send(b.action, b.target)}>
            {b.label}
          </button>
        ))}
        {card.kind === 'question' && commenting && comment.trim() ? <button disabled={busy} className="approve" onClick={() => void send('answer')}>Send answer</button> : null}
        {card.freeText && !commenting ? <button className="quiet" onClick={() => setCommenting(true)}>Comment…</button> : null}
      </div>
    </li>
  );
}

/** The key bar in two rows of four that fit a phone's width: the keys, then the arrows as a keyboard lays them out. */
const BAR: Array<keyof typeof DEVICE_KEYS> = ['Esc', 'Tab', 'Ctrl-C', 'Enter', 'Left', 'Up', 'Down', 'Right'];

/** Read-only unless the desktop let this device type: then a switch, a line to send, and the key bar. */
function Typing({ paneId }: { paneId: string }) {
  const [canType, setCanType] = useState(false);
  const [on, setOn] = useState(false);
  const [text, setText] = useState('');
  const [error, setError] = useState<string | undefined>();
  // Asked when the terminal opens: the desktop may have allowed it since the page loaded.
  useEffect(() => {
    void whoAmI().then((r) => setCanType('canType' in r && r.canType), () => undefined);
  }, [paneId]);
  const send = (what: { text: string } | { key: string }): void => {
    setError(undefined);
    void typeInto(paneId, what).then((r) => {
      if (!r.ok) setError(r.error);
      else if ('text' in what) setText('');
    }, (e: Error) => setError(e.message));
  };
  if (!canType) return <p className="phone-readonly">Read-only: answer its cards in the Inbox.</p>;
  return (
    <div className="phone-typing">
      <label className="phone-check"><input type="checkbox" role="switch" checked={on} onChange={(e) => setOn(e.target.checked)} />Type into this terminal</label>
      {on ? (
        <>
          <form className="phone-line" onSubmit={(e) => { e.preventDefault(); if (text) send({ text }); }}>
            <input value={text} onChange={(e) => setText(e.target.value)} aria-label="Text to type" autoCapitalize="off" autoCorrect="off" spellCheck={false} />
            <button type="submit">Send</button>
          </form>
          <div className="phone-keys" role="toolbar" aria-label="Keys">
            {BAR.map((k) => <button key={k} aria-label={k} onClick={() => send({ key: k })}>{k === 'Up' ? '↑' : k === 'Down' ? '↓' : k === 'Left' ? '←' : k === 'Right' ? '→' : k}</button>)}
          </div>
        </>
      ) : null}
      {error ? <PhoneError text={error} /> : null}
    </div>
  );
}

/** What this device is notified of (push needs a trusted certificate; these say what, once it works). */
function Notifications() {
  const [n, setN] = useState<NotifySettings | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [saved, setSaved] = useState(false);
  const [from, setFrom] = useState('22:00');
  const [to, setTo] = useState('07:00');
  useEffect(() => {
    void notifySettings().then((r) => {
      if (!r.ok) return setError(r.error);
      setN(r.notify);
      if (r.notify.quiet) {
        setFrom(r.notify.quiet.from);
        setTo(r.notify.quiet.to);
      }
    });
  }, []);
  const change = (c: Partial<NotifySettings>): void => {
    setSaved(false);
    void notifySettings(c).then((r) => {
      if (!r.ok) return setError(r.error);
      setError(undefined);
      setN(r.notify);
      setSaved(true);
    }, (e: Error) => setError(e.message));
  };
  if (!n) return error ? <PhoneError text={error} /> : null;
  const box = (key: 'needsYou' | 'done' | 'failed', label: string) => (
    <label className="phone-check"><input type="checkbox" checked={n[key]} onChange={(e) => change({ [key]: e.target.checked })} />{label}</label>
  );
  return (
    <section className="phone-settings" aria-label="Notifications">
      <h2>Notifications</h2>
      {box('needsYou', 'An agent needs me (permissions, questions, decisions)')}
      {box('done', 'An agent is done')}
      {box('failed', 'A command failed')}
      <label className="phone-check"><input type="checkbox" checked={!!n.quiet} onChange={(e) => change({ quiet: e.target.checked ? { from, to } : null })} />Quiet hours</label>
      <div className="phone-quiet">
        <label>From <input type="time" value={from} onChange={(e) => { setFrom(e.target.value); if (n.quiet) change({ quiet: { from: e.target.value, to } }); }} /></label>
        <label>to <input type="time" value={to} onChange={(e) => { setTo(e.target.value); if (n.quiet) change({ quiet: { from, to: e.target.value } }); }} /></label>
      </div>
      <p className="phone-meta" role="status">{error ? '' : saved ? 'Saved.' : 'Push needs a certificate this phone trusts.'}</p>
      {error ? <PhoneError text={error} /> : null}
    </section>
  );
}

/** The name of the machine a card or an agent is from, in its colour (nothing for this machine's own). */
function MachineBadge({ machine, colour }: { machine?: string; colour?: string }) {
  if (!machine) return null;
  return <span className="phone-machine" style={{ '--machine': /^#[0-9a-fA-F]{6}$/.test(colour ?? '') ? colour : 'var(--accent)' } as React.CSSProperties}>{machine}</span>;
}

function Agents({ agents, open }: { agents: AgentRow[]; open: (paneId: string) => void }) {
  if (agents.length === 0) return <p className="phone-empty">No agent is running.</p>;
  return (
    <ul className="phone-agents">
      {agents.map((a) => (
        <li key={a.paneId} className="phone-agent">
          <div className="phone-card-head">
            <strong>{a.agent}</strong>
            <span className={`phone-status status-${a.status}`}>{a.status === 'blocked' ? 'needs you' : a.status}</span>
          </div>
          <p className="phone-meta"><MachineBadge machine={a.machine} colour={a.machineColour} />{a.title}<Folder title={a.title} folder={a.folder} /></p>
          {a.detail ? <p className="phone-text">{a.detail}</p> : null}
          {a.lastLines.length > 0 ? <pre className="phone-lines">{a.lastLines.join('\n')}</pre> : null}
          <div className="phone-buttons"><button onClick={() => open(a.paneId)}>Terminal</button></div>
        </li>
      ))}
    </ul>
  );
}

/** A refusal or failure, as a sentence of its own. */
function PhoneError({ text }: { text: string }) {
  return <p className="phone-error" role="alert">{shownSentence(text)}</p>;
}

/** " · …/its/folder" after a pane's title, the whole path on hover; nothing when the title says it already (common/header-text.ts folderAfter, as a pane's header). */
function Folder({ title, folder }: { title: string; folder: string }) {
  const after = folderAfter(title, folder);
  return after ? <span title={folder}>{after}</span> : null;
}

function ago(at: string): string {
  const s = Math.max(0, Math.round((Date.now() - Date.parse(at)) / 1000));
  if (!Number.isFinite(s)) return '';
  if (s < 60) return 'now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return new Date(at).toLocaleDateString();
}

/**
 * The device contract's views, pure: the inbox (every card waiting for a person, across
 * every pane, newest first) and the agents list. The cards are the panes' benches; the
 * inbox is only a view of them, made again whenever one changes.
 */
import type { PaneInfo, Surface } from '../../preload/contract.ts';
import type { AgentRow, InboxCard, InboxKind } from '../../common/device-contract.ts';
import { headerTitle } from '../../common/header-text.ts';

export type { AgentRow, InboxCard, InboxKind };

/** Who a pane's program is: its agent CLI once known, else the program it runs (past an `env` and its settings). */
export function programOf(pane: Pick<PaneInfo, 'agentCli' | 'command' | 'title'>): string {
  if (pane.agentCli) return pane.agentCli.name;
  const argv = [...pane.command];
  if (argv[0] && /(^|\/)env$/.test(argv[0])) {
    argv.shift();
    while (argv[0] && (argv[0].startsWith('-') || /^[A-Za-z_][A-Za-z0-9_]*=/.test(argv[0]))) argv.shift();
  }
  return argv[0]?.split('/').pop() || pane.title;
}

const KINDS = new Set(['decision', 'question', 'change']);

/** Whether a card waits for a person: an agent's prompt still waiting, or a decision, question or change (of some files) nobody acted on. */
export function waitsForPerson(s: Surface): boolean {
  if (!KINDS.has(s.kind)) return false;
  // A change of no files (a turn with no changes yet) has nothing to approve.
  if (s.kind === 'change' && Array.isArray(s.model.files) && s.model.files.length === 0) return false;
  const state = s.model.state;
  if (typeof state === 'string') return state === 'waiting' && s.model.answerable !== false;
  return s.acted.length === 0;
}

function optionNames(model: Record<string, unknown>): string[] {
  return Array.isArray(model.options) ? (model.options as Array<{ name?: unknown }>).map((o) => (typeof o?.name === 'string' ? o.name : '')).filter(Boolean) : [];
}

export function cardOf(pane: PaneInfo, s: Surface): InboxCard {
  const permission = s.kind === 'decision' && s.route === 'agent' && s.id.startsWith('permission-');
  const kind: InboxKind = permission ? 'permission' : (s.kind as InboxKind);
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  let buttons: InboxCard['buttons'];
  let freeText = false;
  if (permission) {
    buttons = [{ label: 'Approve', action: 'choose', target: 'allow' }, { label: 'Deny', action: 'choose', target: 'deny' }];
    freeText = true;
  } else if (s.kind === 'question') {
    buttons = optionNames(s.model).map((n) => ({ label: n, action: 'choose', target: n }));
    freeText = s.model.free_text !== false || buttons.length === 0;
  } else if (s.kind === 'decision') {
    buttons = [...optionNames(s.model).map((n) => ({ label: n, action: 'choose', target: n })), { label: 'Reject', action: 'reject' }];
    freeText = true;
  } else {
    buttons = [{ label: 'Approve', action: 'approve' }, { label: 'Reject', action: 'reject' }];
    freeText = true;
  }
  return {
    paneId: pane.id,
    surfaceId: s.id,
    kind,
    title: s.title,
    text: str(s.model.question) || str(s.model.summary),
    buttons,
    freeText,
    agent: programOf(pane),
    pane: headerTitle(pane).title,
    tag: pane.tag,
    folder: pane.cwd,
    arrivedAt: s.arrivedAt,
    revision: s.updatedAt,
  };
}

/** Every card waiting for a person, newest first. */
export function inboxOf(panes: readonly PaneInfo[], surfaces: (paneId: string) => readonly Surface[]): InboxCard[] {
  const out: InboxCard[] = [];
  for (const pane of panes) for (const s of surfaces(pane.id)) if (waitsForPerson(s)) out.push(cardOf(pane, s));
  return newestFirst(out);
}

/** Cards newest first (then by pane and id, so that the order is the same each time). */
export function newestFirst(cards: InboxCard[]): InboxCard[] {
  const key = (c: InboxCard) => `${c.paneId}\u0000${c.surfaceId}`;
  return cards.sort((a, b) => (a.arrivedAt < b.arrivedAt ? 1 : a.arrivedAt > b.arrivedAt ? -1 : key(a) < key(b) ? 1 : key(a) > key(b) ? -1 : 0));
}

/** The answer a device may send for a card of its inbox, checked: the action is one of the card's. */
export function answerProblem(card: InboxCard, action: unknown, target: unknown, comment: unknown): string | undefined {
  if (typeof action !== 'string') return 'the answer names no action: tap one of the card\'s buttons';
  if (comment !== undefined && typeof comment !== 'string') return 'the comment must be text';
  if (action === 'answer') {
    if (card.kind !== 'question' || !card.freeText) return 'this card takes no typed answer: tap one of its buttons (a comment goes with it)';
    return typeof comment === 'string' && comment.trim() ? undefined : 'write your answer first, then send it';
  }
  const ok = card.buttons.some((b) => b.action === action && (b.target ?? undefined) === (typeof target === 'string' ? target : undefined));
  return ok ? undefined : `"${action}${typeof target === 'string' ? ` ${target}` : ''}" is not one of this card's answers: tap one of its buttons`;
}

/** Each agent pane's status and its last lines. */
export function agentsOf(panes: readonly PaneInfo[], screen: (paneId: string) => string): AgentRow[] {
  return panes.filter((p) => p.kind === 'agent' || p.agent || p.agentCli).map((p) => {
    let text = '';
    try {
      text = screen(p.id);
    } catch {
      text = '';
    }
    const lastLines = text.split('\n').map((l) => l.trimEnd()).filter((l) => l.trim() !== '').slice(-5);
    const status: AgentRow['status'] = p.status === 'exited' ? 'ended' : p.agent?.status ?? 'idle';
    return {
      paneId: p.id,
      agent: programOf(p),
      title: headerTitle(p).title,
      folder: p.cwd,
      status,
      ...(p.agent?.detail ? { detail: p.agent.detail } : {}),
      ...(p.agent?.since ? { since: p.agent.since } : {}),
      lastLines,
    };
  });
}

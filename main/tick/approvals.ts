/**
 * A person's approval of calls to `mutates: true` tools. Each request is emitted as
 * `approval.changed` (the renderer shows a card in the Tick's pane and on the asking
 * agent's bench) and settles once: approved, refused, timed out, or invalidated (the
 * catalog changed or the session ended before dispatch). Only `approved` lets a call go.
 */
import { randomBytes } from 'node:crypto';
import type { ApprovalRequest } from '../../preload/contract.ts';

type Fields = Pick<ApprovalRequest, 'instanceId' | 'askingPaneId' | 'tickPaneId' | 'tool' | 'description' | 'args' | 'revision'>;

interface Waiting {
  approval: ApprovalRequest;
  timer: ReturnType<typeof setTimeout>;
  resolve(a: ApprovalRequest): void;
}

/** Answered approvals kept for approval.list, newest last. */
const KEEP_ANSWERED = 50;

export class Approvals {
  private readonly waiting = new Map<string, Waiting>();
  private readonly answered: ApprovalRequest[] = [];
  private readonly emit: (a: ApprovalRequest) => void;
  private readonly timeoutMs: () => number;

  constructor(emit: (a: ApprovalRequest) => void, timeoutMs: () => number) {
    this.emit = emit;
    this.timeoutMs = timeoutMs;
  }

  /** Ask a person; resolves with the settled request. */
  ask(fields: Fields): { approval: ApprovalRequest; decided: Promise<ApprovalRequest> } {
    const ms = this.timeoutMs();
    const approval: ApprovalRequest = {
      id: `approval-${randomBytes(6).toString('hex')}`,
      ...fields,
      requestedAt: new Date().toISOString(),
      timeoutSeconds: Math.round(ms / 1000),
      state: 'pending',
    };
    const decided = new Promise<ApprovalRequest>((resolve) => {
      const timer = setTimeout(() => this.settle(approval.id, 'timed_out', `no one answered within ${Math.round(ms / 1000)} s, so the call was not sent`), ms);
      this.waiting.set(approval.id, { approval, timer, resolve });
    });
    this.emit(approval);
    return { approval, decided };
  }

  /** A person's answer. */
  answer(id: string, approve: boolean): { ok: boolean; error?: string } {
    if (typeof id !== 'string' || typeof approve !== 'boolean') return { ok: false, error: 'approval.answer needs approvalId (a string) and approve (true or false)' };
    if (!this.waiting.has(id)) {
      const done = this.answered.find((a) => a.id === id);
      return { ok: false, error: done ? `that approval is no longer pending (it was ${done.state.replace('_', ' ')})` : `there is no approval "${id}"; list them with approval.list` };
    }
    this.settle(id, approve ? 'approved' : 'refused', approve ? undefined : 'a person refused the call, so it was not sent');
    return { ok: true };
  }

  /** Invalidate every pending approval matching `which` (never sent). */
  invalidate(which: (a: ApprovalRequest) => boolean, reason: string): void {
    for (const w of [...this.waiting.values()]) if (which(w.approval)) this.settle(w.approval.id, 'invalidated', reason);
  }

  list(): ApprovalRequest[] {
    return [...this.answered, ...[...this.waiting.values()].map((w) => w.approval)];
  }

  pending(): ApprovalRequest[] {
    return [...this.waiting.values()].map((w) => w.approval);
  }

  dispose(): void {
    this.invalidate(() => true, 'the window is shutting down');
  }

  private settle(id: string, state: ApprovalRequest['state'], reason?: string): void {
    const w = this.waiting.get(id);
    if (!w) return;
    this.waiting.delete(id);
    clearTimeout(w.timer);
    const done: ApprovalRequest = { ...w.approval, state, ...(reason ? { reason } : {}) };
    this.answered.push(done);
    if (this.answered.length > KEEP_ANSWERED) this.answered.shift();
    this.emit(done);
    w.resolve(done);
  }
}

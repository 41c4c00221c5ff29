/**
 * Subscriptions: a client asks for a Tick's state at most once per interval. The host
 * keeps only the latest state; a delivery carries it trimmed to the budget (6.4), how
 * many updates were merged into it since the last delivery, and `recover_with`.
 */
import { randomBytes } from 'node:crypto';
import { encodedSize } from './limits.ts';
import type { TickSession } from './session.ts';
import { itemBudget, trimState } from './trim.ts';

export interface Subscription {
  id: string;
  instanceId: string;
  intervalMs: number;
  createdAt: string;
  /** Update count of the session at the last delivery (or at subscribing). */
  seenUpdates: number;
  lastDeliveryAt: number;
  /** The end of the session was delivered already. */
  endDelivered: boolean;
}

export interface Delivery {
  subscription: string;
  instance: string;
  /** Present while the Tick runs. */
  seq?: number;
  at?: string;
  /** Updates received since the last delivery, all merged into this one state. */
  merged: number;
  /** The latest state's data, trimmed to the budget. Untrusted data from the Tick. */
  data?: unknown;
  trimmed?: boolean;
  cuts?: unknown[];
  moreCuts?: number;
  /** The Tick's query tool that rebuilds what merging dropped. */
  recover_with?: string;
  /** The session ended: why. No more deliveries follow. */
  ended?: string;
}

export const MIN_INTERVAL_MS = 50;
export const DEFAULT_INTERVAL_MS = 1000;
/** Bytes of each delivery item kept for its envelope (ids, seq, at, merged, recover_with). */
const ENVELOPE_BYTES = 512;

export class Subscriptions {
  private readonly subs = new Map<string, Subscription>();
  private readonly wakers = new Set<() => void>();
  private readonly source: (instanceId: string) => TickSession | undefined;

  constructor(source: (instanceId: string) => TickSession | undefined) {
    this.source = source;
  }

  subscribe(instanceId: string, intervalMs = DEFAULT_INTERVAL_MS): Subscription {
    const session = this.source(instanceId);
    if (!session) throw new Error(`there is no hosted instance "${instanceId}" to subscribe to; list instances with TickManage action "list"`);
    if (!Number.isFinite(intervalMs) || intervalMs < MIN_INTERVAL_MS) throw new Error(`interval_ms must be a number of at least ${MIN_INTERVAL_MS}`);
    const sub: Subscription = {
      id: `sub-${randomBytes(6).toString('hex')}`,
      instanceId,
      intervalMs: Math.round(intervalMs),
      createdAt: new Date().toISOString(),
      seenUpdates: session.counters.updates,
      lastDeliveryAt: 0,
      endDelivered: false,
    };
    this.subs.set(sub.id, sub);
    return sub;
  }

  unsubscribe(id: string): boolean {
    const had = this.subs.delete(id);
    this.wake();
    return had;
  }

  get(id: string): Subscription | undefined {
    return this.subs.get(id);
  }

  list(): Subscription[] {
    return [...this.subs.values()];
  }

  /** Something changed (an update, a session end): wake waiting clients. */
  wake(): void {
    for (const w of [...this.wakers]) w();
  }

  /** Drop every subscription of an instance that is gone. */
  dropInstance(instanceId: string): void {
    for (const s of this.subs.values()) if (s.instanceId === instanceId) this.subs.delete(s.id);
    this.wake();
  }

  /**
   * Wait up to `timeoutMs` for the next delivery of any of `ids`; returns every one that
   * is due (several items share the 16 KiB budget, 4 KiB each), or [] on timeout.
   */
  async next(ids: string[], timeoutMs: number, signal?: AbortSignal): Promise<Delivery[]> {
    for (const id of ids) if (!this.subs.has(id)) throw new Error(`there is no subscription "${id}"; subscribe with TickManage action "subscribe"`);
    const deadline = Date.now() + Math.max(0, timeoutMs);
    for (;;) {
      const now = Date.now();
      const due: Subscription[] = [];
      let wakeAt = deadline;
      for (const id of ids) {
        const sub = this.subs.get(id);
        if (!sub) throw new Error(`the subscription "${id}" was removed while waiting`);
        const session = this.source(sub.instanceId);
        const ended = !session || session.ended;
        if (ended) {
          due.push(sub);
          continue;
        }
        if (!session || session.counters.updates === sub.seenUpdates) continue;
        const at = sub.lastDeliveryAt + sub.intervalMs;
        if (at <= now) due.push(sub);
        else wakeAt = Math.min(wakeAt, at);
      }
      if (due.length) return this.deliver(due);
      if (now >= deadline || signal?.aborted) return [];
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.wakers.delete(done);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, Math.max(1, wakeAt - now));
        this.wakers.add(done);
        signal?.addEventListener('abort', done);
      });
    }
  }

  private deliver(due: Subscription[]): Delivery[] {
    const budget = itemBudget(due.length);
    return due.map((sub) => {
      const session = this.source(sub.instanceId);
      const updates = session?.counters.updates ?? sub.seenUpdates;
      const merged = updates - sub.seenUpdates;
      sub.seenUpdates = updates;
      sub.lastDeliveryAt = Date.now();
      const base: Delivery = { subscription: sub.id, instance: sub.instanceId, merged };
      const recover = session?.catalog?.descriptor.recover_with;
      if (recover) base.recover_with = recover;
      if (!session || session.ended) {
        sub.endDelivered = true;
        base.ended = session?.end?.reason ?? 'the instance is gone';
        return base;
      }
      const latest = session.latest;
      if (!latest) return base;
      const series = session.catalog?.descriptor.state?.series ?? [];
      const envelope = encodedSize({ ...base, seq: latest.seq, at: latest.at });
      const t = trimState(latest.data, series, Math.max(64, budget - Math.max(ENVELOPE_BYTES, envelope)));
      return { ...base, seq: latest.seq, at: latest.at, data: t.data, trimmed: t.trimmed, ...(t.trimmed ? { cuts: t.cuts, moreCuts: t.moreCuts } : {}) };
    });
  }
}

/**
 * Web Push for devices (docs/design/remote.md, "Push"): VAPID (RFC 8292) with the service's
 * own key pair, made once (`devices/vapid.json`, 0600), payloads encrypted to each device's
 * subscription (RFC 8291, aes128gcm) by the `web-push` library. A card that asks a person
 * (a permission, a question, a decision) is pushed to every subscribed device with its
 * answers as notification actions, each a single-use token bound to the device, the card
 * and its revision; a card that leaves the inbox is withdrawn, and its tokens die with it.
 * The push service sees the endpoint, a TTL, an urgency and an opaque Topic, nothing else.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type https from 'node:https';
import path from 'node:path';
import type { InboxCard } from '../../common/device-contract.ts';
import { readJson } from '../state/files.ts';
import { DEFAULT_NOTIFY, type DeviceRecord, type DeviceStore, type NotifySettings, type PushSubscriptionRecord } from './store.ts';

export type Answer = { ok: true } | { ok: false; error: string };

/** Tokens live this long at most (and only while their card waits, at the revision it had). */
const TOKEN_MS = 24 * 3600_000;
const MAX_TRIES = 6;
const STALE = 'this card was already answered elsewhere (on the desktop or another device), or it changed: nothing was sent';
const USED = 'this answer was used already: nothing was sent';
/** Notification actions a platform shows at most (Chrome: 2). */
const MAX_ACTIONS = 2;

interface Token { hash: string; paneId: string; surfaceId: string; revision: string; action: string; target?: string; expires: number }
/** A card as pushed: `id` names this push of it, so a withdrawal closes that notification and never a newer one under the same tag. */
/** A device's pushes of one Topic: the last one made (`seq`), the chain they go through, and how to end a retry's wait. */
interface Lane { seq: number; tail: Promise<void>; wake: (() => void) | undefined }
interface Notified { revision: string; topic: string; id: string; hashes: Set<string>; tokens: string[] }

/** A subscription as a browser's PushSubscription.toJSON() gives it, checked; a string says what is wrong. */
export function checkSubscription(body: Record<string, unknown>): PushSubscriptionRecord | string {
  const { endpoint, keys } = body as { endpoint?: unknown; keys?: { p256dh?: unknown; auth?: unknown } };
  if (typeof endpoint !== 'string' || endpoint.length > 2048) return 'the subscription has no endpoint: subscribe again';
  let u: URL;
  try {
    u = new URL(endpoint);
  } catch {
    return 'the subscription\'s endpoint is not a URL: subscribe again';
  }
  if (u.protocol !== 'https:') return 'a push endpoint must be https: subscribe again';
  const b64 = (v: unknown, bytes: number): boolean => typeof v === 'string' && /^[A-Za-z0-9_-]+={0,2}$/.test(v) && Buffer.from(v, 'base64url').length === bytes;
  if (!keys || !b64(keys.p256dh, 65) || !b64(keys.auth, 16)) return 'the subscription\'s keys are missing or malformed (p256dh: 65 bytes, auth: 16, base64url): subscribe again';
  return { endpoint, keys: { p256dh: keys.p256dh as string, auth: keys.auth as string } };
}

const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;

/** Notification settings as a device sends them, merged onto its current ones; a string says what is wrong. */
export function checkNotify(body: Record<string, unknown>, current: NotifySettings): NotifySettings | string {
  const out: NotifySettings = { ...current };
  for (const k of ['needsYou', 'done', 'failed'] as const) {
    if (body[k] === undefined) continue;
    if (typeof body[k] !== 'boolean') return `${k} must be true or false`;
    out[k] = body[k] as boolean;
  }
  if (body.quiet !== undefined) {
    const q = body.quiet as { from?: unknown; to?: unknown } | null;
    if (q === null) out.quiet = null;
    else if (typeof q === 'object' && typeof q.from === 'string' && typeof q.to === 'string' && HHMM.test(q.from) && HHMM.test(q.to) && q.from !== q.to) out.quiet = { from: q.from, to: q.to };
    else return 'quiet hours are {"from":"HH:MM","to":"HH:MM"} (24-hour, different times), or null for none';
  }
  return out;
}

/** Whether `at` (local time) falls in the quiet hours (from inclusive, to exclusive; across midnight when from > to). */
export function inQuiet(at: Date, quiet: NotifySettings['quiet']): boolean {
  if (!quiet) return false;
  const m = at.getHours() * 60 + at.getMinutes();
  const mins = (t: string) => Number(t.slice(0, 2)) * 60 + Number(t.slice(3));
  const from = mins(quiet.from);
  const to = mins(quiet.to);
  return from < to ? m >= from && m < to : m >= from || m < to;
}

/** The opaque Topic of a card's notifications: 32 base64url characters that say nothing of the card. */
export function topicOf(secret: Buffer, paneId: string, surfaceId: string): string {
  return createHash('sha256').update(secret).update(`${paneId}\0${surfaceId}`).digest('base64url').slice(0, 32);
}

export class PushCenter {
  /** The agent push requests go through (tests trust their local endpoint with it). */
  agent: https.Agent | undefined;
  private readonly file: string;
  private readonly store: DeviceStore;
  private readonly now: () => number;
  private readonly topicSecret = randomBytes(16);
  private keys: { publicKey: string; privateKey: string } | undefined;
  private readonly tokens = new Map<string, Token>();
  private readonly notified = new Map<string, Notified>();
  private readonly lanes = new Map<string, Lane>();
  /** Tokens no longer good, and why (so the phone can say so): used, or their card answered elsewhere. */
  private readonly spent = new Map<string, string>();

  constructor(deps: { dir: string; store: DeviceStore; now: () => number }) {
    this.file = path.join(deps.dir, 'vapid.json');
    this.store = deps.store;
    this.now = deps.now;
  }

  /** The VAPID key pair: read, or made once. */
  async vapid(): Promise<{ publicKey: string; privateKey: string }> {
    if (this.keys) return this.keys;
    const saved = readJson(this.file) as { publicKey?: unknown; privateKey?: unknown } | undefined;
    if (typeof saved?.publicKey === 'string' && typeof saved.privateKey === 'string') return (this.keys = { publicKey: saved.publicKey, privateKey: saved.privateKey });
    const webpush = (await import('web-push')).default;
    const k = webpush.generateVAPIDKeys();
    this.store.ensureDir();
    fs.writeFileSync(this.file, JSON.stringify({ publicKey: k.publicKey, privateKey: k.privateKey }) + '\n', { mode: 0o600 });
    return (this.keys = k);
  }

  async subscribe(device: DeviceRecord, body: Record<string, unknown>): Promise<Answer> {
    const sub = checkSubscription(body);
    if (typeof sub === 'string') return { ok: false, error: sub };
    await this.vapid();
    this.store.setPush(device.hash, sub);
    return { ok: true };
  }

  /** Whether this device is notified of `kind` now. */
  private wants(d: DeviceRecord, kind: 'needsYou' | 'done' | 'failed'): boolean {
    const n = { ...DEFAULT_NOTIFY, ...d.notify };
    return !!d.push && n[kind] && !inQuiet(new Date(this.now()), n.quiet);
  }

  /** An agent done, or a command failed, in a pane: a note (no actions) to each device that asked for it. */
  note(kind: 'done' | 'failed', paneId: string, title: string, body: string): void {
    const topic = topicOf(this.topicSecret, paneId, `note-${kind}`);
    for (const d of this.store.list()) {
      if (this.wants(d, kind)) this.sendTo(d.hash, { t: 'note', tag: topic, title: title.slice(0, 120), body: body.slice(0, 300), kind }, topic, () => true);
    }
  }

  /** A device revoked: its tokens die (its subscription went with its record). */
  forget(hash: string): void {
    for (const [t, tok] of this.tokens) if (tok.hash === hash) this.tokens.delete(t);
    for (const n of this.notified.values()) n.hashes.delete(hash);
  }

  /** The inbox changed: new cards that ask are pushed, cards gone (or changed) are withdrawn and their tokens voided. */
  inboxChanged(cards: readonly InboxCard[]): void {
    const now = this.now();
    for (const [t, tok] of this.tokens) if (tok.expires <= now) this.tokens.delete(t);
    const current = new Map(cards.map((c) => [`${c.paneId}/${c.surfaceId}`, c]));
    for (const [key, n] of this.notified) {
      const card = current.get(key);
      if (card && card.revision === n.revision) continue;
      this.notified.delete(key);
      for (const t of n.tokens) if (this.tokens.delete(t)) this.spend(t, STALE);
      for (const hash of n.hashes) this.sendTo(hash, { t: 'withdraw', tag: n.topic, id: n.id }, n.topic, () => true);
    }
    for (const [key, card] of current) {
      if (this.notified.has(key) || card.kind === 'change') continue;
      const topic = topicOf(this.topicSecret, card.paneId, card.surfaceId);
      const n: Notified = { revision: card.revision, topic, id: randomBytes(9).toString('base64url'), hashes: new Set(), tokens: [] };
      this.notified.set(key, n);
      for (const d of this.store.list()) {
        if (!this.wants(d, 'needsYou')) continue;
        const actions = card.buttons.slice(0, MAX_ACTIONS).map((b, i) => {
          const token = randomBytes(16).toString('base64url');
          this.tokens.set(token, { hash: d.hash, paneId: card.paneId, surfaceId: card.surfaceId, revision: card.revision, action: b.action, ...(b.target !== undefined ? { target: b.target } : {}), expires: now + TOKEN_MS });
          n.tokens.push(token);
          return { action: `a${i}`, title: b.label, token };
        });
        n.hashes.add(d.hash);
        const still = (): boolean => this.notified.get(key) === n;
        this.sendTo(d.hash, { t: 'card', tag: topic, id: n.id, title: `${card.machine ? `${card.machine} · ` : ''}${card.agent}: ${card.title}`.slice(0, 120), body: card.text.slice(0, 300), kind: card.kind, actions }, topic, still);
      }
    }
  }

  /** An action of a notification, with its token: single use, this device's, for the card as it was; then the same answer as a tap in the inbox. */
  async act(device: DeviceRecord, body: Record<string, unknown>, inbox: () => InboxCard[], answer: (body: Record<string, unknown>) => Promise<Answer>): Promise<Answer> {
    const token = typeof body.token === 'string' ? body.token : '';
    const t = this.tokens.get(token);
    if (!t || t.hash !== device.hash || t.expires <= this.now()) return { ok: false, error: (t?.hash === device.hash ? undefined : this.spent.get(token)) ?? 'this answer is unknown or has expired: open the inbox; nothing was sent' };
    // Single use, and the card's other answers on this device with it.
    for (const [k, o] of this.tokens) if (o.hash === t.hash && o.paneId === t.paneId && o.surfaceId === t.surfaceId) {
      this.tokens.delete(k);
      this.spend(k, USED);
    }
    const card = inbox().find((c) => c.paneId === t.paneId && c.surfaceId === t.surfaceId);
    if (!card || card.revision !== t.revision) return { ok: false, error: STALE };
    return answer({ paneId: t.paneId, surfaceId: t.surfaceId, action: t.action, ...(t.target !== undefined ? { target: t.target } : {}), ...(typeof body.comment === 'string' ? { comment: body.comment } : {}), revision: t.revision });
  }

  private spend(token: string, why: string): void {
    this.spent.set(token, why);
    // Remembered for the last thousand only: an older one is simply unknown.
    if (this.spent.size > 1000) this.spent.delete(this.spent.keys().next().value!);
  }

  /**
   * One push to one device, retried with backoff on 429 and 5xx (Retry-After honoured) while
   * `wanted`; 404 and 410 drop its subscription. A device's pushes of one Topic go one at a time,
   * in the order they were made (so the push service, which keeps only the last of a Topic it
   * holds, keeps the newest), and a newer one of that Topic supersedes a card or a note still
   * waiting or to be tried again (what the push service would do with it anyway). A withdrawal
   * is never superseded: the push it withdraws may be shown, and what follows may never arrive.
   */
  private sendTo(hash: string, payload: unknown, topic: string, wanted: () => boolean): void {
    const key = `${hash} ${topic}`;
    const lane = this.lanes.get(key) ?? { seq: 0, tail: Promise.resolve(), wake: undefined };
    this.lanes.set(key, lane);
    const seq = ++lane.seq;
    lane.wake?.();
    const withdrawal = (payload as { t?: string }).t === 'withdraw';
    const current = (): boolean => (withdrawal || lane.seq === seq) && wanted();
    lane.tail = lane.tail.then(() => this.deliver(hash, payload, topic, current, lane)).catch(() => undefined).then(() => {
      if (this.lanes.get(key) === lane && lane.seq === seq) this.lanes.delete(key);
    });
  }

  private async deliver(hash: string, payload: unknown, topic: string, wanted: () => boolean, lane: Lane): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const d = this.store.byHash(hash);
      if (!d?.push || !wanted()) return;
      const sub = d.push;
      const webpush = (await import('web-push')).default;
      const vapid = await this.vapid();
      try {
        await webpush.sendNotification(sub, JSON.stringify(payload), {
          vapidDetails: { subject: 'mailto:terminal-delight@localhost.localdomain', publicKey: vapid.publicKey, privateKey: vapid.privateKey },
          TTL: 3600, urgency: 'high', topic, timeout: 10_000, ...(this.agent ? { agent: this.agent } : {}),
        });
        return;
      } catch (e) {
        const status = (e as { statusCode?: number }).statusCode;
        if (status === 404 || status === 410) {
          if (this.store.byHash(hash)?.push?.endpoint === sub.endpoint) this.store.setPush(hash, undefined);
          return;
        }
        const retriable = status === undefined || status === 429 || status >= 500;
        if (!retriable || attempt + 1 >= MAX_TRIES || !wanted()) return;
        const ms = retryDelayMs(attempt, (e as { headers?: Record<string, string> }).headers?.['retry-after'], this.now());
        // The wait ends early when a newer push of this Topic supersedes this one.
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, ms);
          timer.unref();
          lane.wake = () => {
            if (wanted()) return;
            clearTimeout(timer);
            resolve();
          };
        });
        lane.wake = undefined;
      }
    }
  }
}

/**
 * How long to wait before try `attempt + 1` of a push that failed: the push service's
 * Retry-After (seconds, or an HTTP date) when it gave one, at most 5 minutes; else 1, 2, 4,
 * 8, 16 s.
 */
export function retryDelayMs(attempt: number, retryAfter: string | undefined, now: number): number {
  const backoff = 1000 * 2 ** attempt;
  if (retryAfter === undefined || retryAfter.trim() === '') return backoff;
  const seconds = /^\s*\d+\s*$/.test(retryAfter) ? Number(retryAfter) * 1000 : Date.parse(retryAfter) - now;
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 300_000) : backoff;
}

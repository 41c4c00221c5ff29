/**
 * The Tick protocol 3 session engine, host side. Pure of process handling: it is fed
 * the Tick's standard output (`feed`, `eof`), told when the Tick exits (`exited`), and
 * writes requests and terminates the Tick through a two-function `SessionIO`, so it
 * runs over any pair of streams. What it enforces is written in docs/spec/tick-host.md.
 */
import type { Outcome } from '../../preload/contract.ts';
import { type Catalog, checkArgs, validateDescriptor } from './describe.ts';
import { encodedSize, isRfc3339, isUinteger, LIMITS, type Limits, outcomeOfCode } from './limits.ts';

export interface SessionIO {
  /** Host to Tick: one complete line (the session adds the newline). */
  write(line: string): void;
  /** Terminate the Tick: SIGTERM to its process group, SIGKILL after a grace. */
  kill(): void;
}

export interface TickState {
  seq: number;
  data: unknown;
  /** The Tick's `at`, or the host's receipt time when absent. */
  at: string;
  /** Whether it came from a tick/read result or a tick/update. */
  from: 'read' | 'update';
  receivedAt: string;
}

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** What became of one request. Every request gets exactly one. */
export interface RequestResult {
  ok: boolean;
  /** For tick/call: whether it may have had an effect. Describe and read report theirs too. */
  outcome: Outcome;
  result?: unknown;
  /** The Tick's own error response. */
  error?: RpcError;
  /** The host's reason, when the request failed for any other reason than the Tick's error. */
  reason?: string;
  /** Whether the request was written to the Tick. */
  sent: boolean;
  id?: number;
}

export interface LateResponse {
  id: number;
  method: string;
  at: string;
  ok: boolean;
  error?: RpcError;
  bytes: number;
}

export interface SessionCounters {
  updates: number;
  unmatchedResponses: number;
  ignoredNotifications: number;
  requestsFromTick: number;
  lateResponses: number;
}

export interface SessionEnd {
  reason: string;
  /** `violation`: the Tick broke the protocol; `exit`: it exited or closed its output; `closed`: the host ended it. */
  cause: 'violation' | 'exit' | 'closed';
  at: string;
}

type Method = 'tick/describe' | 'tick/read' | 'tick/call';

interface Pending {
  method: Method;
  params: Record<string, unknown>;
  id?: number;
  /** Read floor recorded when the read is sent (6.3). */
  floor?: number;
  timer?: ReturnType<typeof setTimeout>;
  /** Settled already (timed out); a response arriving now is a late one. */
  settled: boolean;
  sent: boolean;
  /** A `tick check` probe: sent as given. */
  probe: boolean;
  resolve(r: RequestResult): void;
}

export interface SessionListeners {
  update?(state: TickState): void;
  ended?(end: SessionEnd): void;
  /** The catalog changed (a re-describe returned another revision, or failed validation). */
  catalog?(catalog: Catalog | undefined, previousRevision: string | undefined): void;
  late?(late: LateResponse): void;
}

export interface SessionOptions {
  limits?: Partial<Limits>;
  listeners?: SessionListeners;
}

const now = () => new Date().toISOString();

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export class TickSession {
  readonly limits: Limits;
  readonly counters: SessionCounters = { updates: 0, unmatchedResponses: 0, ignoredNotifications: 0, requestsFromTick: 0, lateResponses: 0 };
  readonly late: LateResponse[] = [];
  /** The validated catalog from the last successful tick/describe. */
  catalog: Catalog | undefined;
  /** Set when a re-describe failed validation: calls are refused until a describe succeeds. */
  catalogProblem: string | undefined;
  /** The latest state: the highest seq received, from a read or an update; ties go to the newer arrival. */
  latest: TickState | undefined;
  lastUpdateSeq: number | undefined;
  lastReadSeq: number | undefined;
  end: SessionEnd | undefined;

  private readonly io: SessionIO;
  private readonly hooks: { [K in keyof SessionListeners]-?: Array<NonNullable<SessionListeners[K]>> } = { update: [], ended: [], catalog: [], late: [] };
  private nextId = 1;
  private readonly inFlight = new Map<number, Pending>();
  private readonly queue: Pending[] = [];
  private partial: Buffer[] = [];
  private partialBytes = 0;
  private lateBytes = 0;
  private redescribing = false;

  constructor(io: SessionIO, opts: SessionOptions = {}) {
    this.io = io;
    this.limits = { ...LIMITS, ...opts.limits };
    for (const [k, fn] of Object.entries(opts.listeners ?? {})) if (fn) (this.hooks[k as keyof SessionListeners] as unknown[]).push(fn);
  }

  /** Listen to one kind of session event; returns a function that stops listening. */
  on<K extends keyof SessionListeners>(name: K, fn: NonNullable<SessionListeners[K]>): () => void {
    const list = this.hooks[name] as unknown[];
    list.push(fn);
    return () => {
      const i = list.indexOf(fn);
      if (i >= 0) list.splice(i, 1);
    };
  }

  /** Called once when the session ends (at once when it has ended already). */
  onEnd(fn: (end: SessionEnd) => void): void {
    if (this.end) fn(this.end);
    else this.on('ended', fn);
  }

  private fire<K extends keyof SessionListeners>(name: K, ...args: Parameters<NonNullable<SessionListeners[K]>>): void {
    for (const fn of [...this.hooks[name]] as Array<(...a: unknown[]) => void>) {
      try {
        fn(...args);
      } catch {
        // a listener's failure never breaks the session
      }
    }
  }

  get ended(): boolean {
    return this.end !== undefined;
  }

  /** Requests written and not yet answered (timed-out ones included: they still hold their slot). */
  get inFlightCount(): number {
    return this.inFlight.size;
  }

  get queuedCount(): number {
    return this.queue.length;
  }

  // ───────────── requests ─────────────

  describe(timeoutMs = this.limits.queryMs): Promise<RequestResult> {
    return this.enqueue('tick/describe', {}, timeoutMs);
  }

  read(timeoutMs = this.limits.queryMs): Promise<RequestResult> {
    return this.enqueue('tick/read', {}, timeoutMs);
  }

  /**
   * A tool call, prepared (and approved, for a mutating tool) against `revision`. Never
   * sent when the tool is unknown, the arguments break its input_schema, or `revision`
   * is not the current catalog's, at the time of the call and again at the time it
   * leaves the queue. Never resent.
   */
  call(tool: string, args: unknown, revision: string, timeoutMs = this.limits.callMs): Promise<RequestResult> {
    const refuse = (code: number, reason: string) => Promise.resolve<RequestResult>({ ok: false, outcome: 'not_executed', sent: false, error: { code, message: reason }, reason });
    if (this.end) return refuse(-32001, `the Tick's session has ended (${this.end.reason}); open the Tick again`);
    if (this.catalogProblem) return refuse(-32001, `the Tick's current catalog is invalid (${this.catalogProblem}); no call is sent until it describes itself validly`);
    if (!this.catalog) return refuse(-32001, 'the Tick has not described itself yet; wait until it is ready');
    const bad = checkArgs(this.catalog, tool, args);
    if (bad) return refuse(-32602, bad);
    if (revision !== this.catalog.descriptor.revision) return refuse(-32004, this.staleMessage(revision));
    return this.enqueue('tick/call', { tool, args: args as Record<string, unknown>, revision }, timeoutMs);
  }

  /**
   * For `tick check` only: send a request exactly as given, skipping the host's own
   * checks (stale revision, unknown tool, bad args), to see how the Tick answers them.
   * The host's agents' path (`call`) never uses it.
   */
  probe(method: Method, params: Record<string, unknown>, timeoutMs = this.limits.queryMs): Promise<RequestResult> {
    return this.enqueue(method, params, timeoutMs, true);
  }

  /** Whether a tool call would need a person's approval (a mutating tool). */
  mutates(tool: string): boolean | undefined {
    return this.catalog?.tools.get(tool)?.tool.mutates;
  }

  private staleMessage(revision: string): string {
    return `the call was prepared against catalog revision "${revision}" but the Tick's catalog is now "${this.catalog?.descriptor.revision}"; describe the Tick and prepare the call again`;
  }

  private enqueue(method: Method, params: Record<string, unknown>, timeoutMs: number, probe = false): Promise<RequestResult> {
    if (this.end) {
      return Promise.resolve({ ok: false, outcome: 'not_executed', sent: false, reason: `the Tick's session has ended (${this.end.reason}); open the Tick again` });
    }
    return new Promise<RequestResult>((resolve) => {
      const p: Pending = { method, params, settled: false, sent: false, probe, resolve };
      p.timer = setTimeout(() => this.timeout(p, timeoutMs), timeoutMs);
      this.queue.push(p);
      this.pump();
    });
  }

  private pump(): void {
    while (!this.end && this.inFlight.size < this.limits.inFlight && this.queue.length) {
      const p = this.queue.shift()!;
      if (p.method === 'tick/call' && !p.probe) {
        const revision = p.params.revision as string;
        if (this.catalogProblem || !this.catalog || revision !== this.catalog.descriptor.revision) {
          const message = this.catalogProblem ? `the Tick's current catalog is invalid (${this.catalogProblem})` : this.staleMessage(revision);
          this.settle(p, { ok: false, outcome: 'not_executed', sent: false, error: { code: -32004, message }, reason: message });
          continue;
        }
      }
      this.send(p);
    }
  }

  private send(p: Pending): void {
    if (p.sent) throw new Error('a request is never sent twice');
    const id = this.nextId++;
    p.id = id;
    p.sent = true;
    if (p.method === 'tick/read') p.floor = Math.max(this.lastReadSeq ?? 0, this.lastUpdateSeq ?? 0);
    this.inFlight.set(id, p);
    try {
      this.io.write(JSON.stringify({ jsonrpc: '2.0', id, method: p.method, params: p.params }));
    } catch (e) {
      this.finish({ reason: `writing to the Tick's standard input failed (${(e as Error).message})`, cause: 'exit', at: now() });
    }
  }

  private timeout(p: Pending, ms: number): void {
    if (p.settled) return;
    if (!p.sent) {
      const i = this.queue.indexOf(p);
      if (i >= 0) this.queue.splice(i, 1);
      this.settle(p, { ok: false, outcome: 'not_executed', sent: false, reason: `${p.method} waited ${ms / 1000} s behind ${this.limits.inFlight} requests in flight and was never sent` });
      return;
    }
    this.settle(p, { ok: false, outcome: 'unknown', sent: true, id: p.id, reason: `the Tick did not answer ${p.method} within ${ms / 1000} s` });
  }

  private settle(p: Pending, r: RequestResult): void {
    if (p.settled) return;
    p.settled = true;
    if (p.timer) clearTimeout(p.timer);
    p.resolve(r);
  }

  // ───────────── the Tick's output ─────────────

  /** Bytes from the Tick's standard output. */
  feed(chunk: Buffer): void {
    let start = 0;
    while (!this.end) {
      const nl = chunk.indexOf(10, start);
      if (nl === -1) {
        if (start < chunk.length) {
          const rest = chunk.subarray(start);
          this.partial.push(rest);
          this.partialBytes += rest.length;
          if (this.partialBytes > this.limits.lineBytes) {
            this.violation(`a line from the Tick passed ${this.limits.lineBytes} bytes without a newline`);
            return;
          }
          this.checkBuffers();
        }
        return;
      }
      let line = chunk.subarray(start, nl);
      if (this.partial.length) {
        this.partial.push(line);
        line = Buffer.concat(this.partial, this.partialBytes + line.length);
        this.partial = [];
        this.partialBytes = 0;
      }
      if (line.length > this.limits.lineBytes) {
        this.violation(`a line from the Tick is ${line.length} bytes, over the ${this.limits.lineBytes}-byte limit`);
        return;
      }
      this.line(line);
      start = nl + 1;
    }
  }

  /** The Tick's standard output closed. */
  eof(): void {
    if (this.end) return;
    if (this.partialBytes > 0) {
      this.violation('the Tick\'s output ended without a terminating newline');
      return;
    }
    this.finish({ reason: 'the Tick closed its standard output', cause: 'exit', at: now() });
  }

  /** The Tick's process exited. */
  exited(code: number | null, signal: string | null): void {
    if (this.end) return;
    if (this.partialBytes > 0) {
      this.violation('the Tick\'s output ended without a terminating newline');
      return;
    }
    const how = signal ? `was ended by ${signal}` : `exited with code ${code ?? 'unknown'}`;
    this.finish({ reason: `the Tick ${how}`, cause: 'exit', at: now() });
  }

  /** The host ends the session (closing the instance). */
  close(reason = 'the instance was closed'): void {
    if (this.end) return;
    this.finish({ reason, cause: 'closed', at: now() });
  }

  private line(buf: Buffer): void {
    let msg: unknown;
    try {
      msg = JSON.parse(buf.toString('utf8'));
    } catch {
      this.violation(`the Tick wrote a line that is not valid JSON: ${JSON.stringify(buf.subarray(0, 80).toString('utf8'))}`);
      return;
    }
    if (!isObject(msg)) {
      this.violation('the Tick wrote a line with neither an integer id nor a method (not a JSON object)');
      return;
    }
    if (msg.jsonrpc !== '2.0') {
      this.violation(`the Tick wrote a message whose jsonrpc is ${JSON.stringify(msg.jsonrpc ?? null)}, not "2.0"`);
      return;
    }
    const hasId = Number.isSafeInteger(msg.id);
    const hasMethod = typeof msg.method === 'string';
    if (hasId && hasMethod) {
      // A request from the Tick: the Tick MUST NOT send one, but 3.6 does not list it as
      // a violation; it is neither a response nor a notification: ignored and counted.
      this.counters.requestsFromTick++;
      return;
    }
    if (hasMethod) {
      if (msg.method === 'tick/update') this.update(msg.params);
      else this.counters.ignoredNotifications++;
      return;
    }
    if (hasId) {
      this.response(msg.id as number, msg);
      return;
    }
    this.violation(`the Tick wrote a message with neither an integer id nor a method (id ${JSON.stringify(msg.id ?? null)})`);
  }

  private update(params: unknown): void {
    if (!isObject(params)) return this.violation('a tick/update has no params object');
    if (params.data === null || params.data === undefined) return this.violation('a tick/update carries null data');
    if (!isUinteger(params.seq)) return this.violation(`a tick/update has seq ${JSON.stringify(params.seq ?? null)}, not an unsigned integer`);
    if (this.lastUpdateSeq !== undefined && params.seq <= this.lastUpdateSeq) {
      return this.violation(`a tick/update has seq ${params.seq}, not above the previous update's ${this.lastUpdateSeq}`);
    }
    if (params.at !== undefined && !isRfc3339(params.at)) return this.violation(`a tick/update has at ${JSON.stringify(params.at)}, not an RFC 3339 timestamp`);
    const bytes = encodedSize(params);
    if (bytes > this.limits.updateBytes) return this.violation(`a tick/update is ${bytes} bytes encoded, over the ${this.limits.updateBytes}-byte limit`);
    this.lastUpdateSeq = params.seq;
    this.counters.updates++;
    const receivedAt = now();
    const state: TickState = { seq: params.seq, data: params.data, at: typeof params.at === 'string' ? params.at : receivedAt, from: 'update', receivedAt };
    if (!this.latest || state.seq >= this.latest.seq) this.latest = state;
    this.fire('update', state);
  }

  private response(id: number, msg: Record<string, unknown>): void {
    const p = this.inFlight.get(id);
    if (!p) {
      this.counters.unmatchedResponses++;
      return;
    }
    this.inFlight.delete(id);
    const hasResult = 'result' in msg;
    const hasError = 'error' in msg;
    if (p.settled) {
      // A late response (after the timeout): recorded, changes nothing.
      const bytes = hasResult ? encodedSize(msg.result) : 0;
      const late: LateResponse = { id, method: p.method, at: now(), ok: hasResult && !hasError, bytes, ...(hasError && isObject(msg.error) ? { error: msg.error as unknown as RpcError } : {}) };
      this.counters.lateResponses++;
      this.late.push(late);
      this.lateBytes += bytes;
      while (this.late.length > 64) this.lateBytes -= this.late.shift()!.bytes;
      this.checkBuffers();
      this.fire('late', late);
      this.pump();
      return;
    }
    this.settle(p, this.judge(p, id, msg, hasResult, hasError));
    this.pump();
  }

  /** Turn one matched response into its result: request-level failures of 3.6 fail only this request. */
  private judge(p: Pending, id: number, msg: Record<string, unknown>, hasResult: boolean, hasError: boolean): RequestResult {
    const isCall = p.method === 'tick/call';
    if (hasResult === hasError) {
      return { ok: false, outcome: 'unknown', sent: true, id, reason: `the Tick answered ${p.method} with ${hasResult ? 'both result and error' : 'neither result nor error'}` };
    }
    if (hasError) {
      const e = msg.error;
      if (!isObject(e) || !Number.isSafeInteger(e.code) || typeof e.message !== 'string') {
        return { ok: false, outcome: 'unknown', sent: true, id, reason: `the Tick answered ${p.method} with a malformed error (it needs an integer code and a message)` };
      }
      const error: RpcError = { code: e.code as number, message: e.message, ...('data' in e ? { data: e.data } : {}) };
      if (isCall && error.code === -32004 && !p.probe) this.redescribe();
      return { ok: false, outcome: outcomeOfCode(error.code), sent: true, id, error };
    }
    const result = msg.result;
    const bytes = encodedSize(result);
    if (bytes > this.limits.resultBytes) {
      return { ok: false, outcome: isCall ? 'executed' : 'unknown', sent: true, id, reason: `the Tick's ${p.method} result is ${bytes} bytes encoded, over the ${this.limits.resultBytes}-byte limit` };
    }
    if (p.method === 'tick/read') return this.judgeRead(p, id, result);
    if (p.method === 'tick/describe') return this.judgeDescribe(id, result);
    return { ok: true, outcome: 'executed', sent: true, id, result };
  }

  private judgeRead(p: Pending, id: number, result: unknown): RequestResult {
    const fail = (reason: string): RequestResult => ({ ok: false, outcome: 'unknown', sent: true, id, reason });
    if (!isObject(result)) return fail('the Tick\'s tick/read result is not an object with seq and data');
    if (!isUinteger(result.seq)) return fail(`the Tick's tick/read result has seq ${JSON.stringify(result.seq ?? null)}, not an unsigned integer`);
    if (!('data' in result)) return fail('the Tick\'s tick/read result has no data (null is allowed while it has no content)');
    if (result.at !== undefined && !isRfc3339(result.at)) return fail(`the Tick's tick/read result has at ${JSON.stringify(result.at)}, not an RFC 3339 timestamp`);
    const floor = p.floor ?? 0;
    if (result.seq < floor) return fail(`the Tick's tick/read result has seq ${result.seq}, below the read floor ${floor} (the last read or update seq when the read was sent)`);
    this.lastReadSeq = Math.max(this.lastReadSeq ?? 0, result.seq);
    const receivedAt = now();
    const state: TickState = { seq: result.seq, data: result.data, at: typeof result.at === 'string' ? result.at : receivedAt, from: 'read', receivedAt };
    if (!this.latest || state.seq >= this.latest.seq) this.latest = state;
    return { ok: true, outcome: 'executed', sent: true, id, result: state };
  }

  private judgeDescribe(id: number, result: unknown): RequestResult {
    const check = validateDescriptor(result);
    const previous = this.catalog?.descriptor.revision;
    if (!check.ok) {
      if (this.catalog) {
        this.catalogProblem = check.error;
        this.fire('catalog', undefined, previous);
      }
      return { ok: false, outcome: 'unknown', sent: true, id, reason: check.error };
    }
    const changed = !this.catalog || this.catalogProblem !== undefined || check.catalog.descriptor.revision !== previous;
    const hadOne = this.catalog !== undefined;
    this.catalog = check.catalog;
    this.catalogProblem = undefined;
    if (changed && hadOne) this.fire('catalog', check.catalog, previous);
    return { ok: true, outcome: 'executed', sent: true, id, result: check.catalog.descriptor };
  }

  /** Describe again (after -32004, or on request); one at a time. */
  redescribe(): Promise<RequestResult> | undefined {
    if (this.redescribing || this.end) return undefined;
    this.redescribing = true;
    const r = this.describe();
    void r.then(() => {
      this.redescribing = false;
    });
    return r;
  }

  /** Response buffers across in-flight calls (the partial line and retained late responses) over the cap fail the newest call. */
  private checkBuffers(): void {
    if (this.partialBytes + this.lateBytes <= this.limits.responseBuffersBytes) return;
    let newest: Pending | undefined;
    for (const p of this.inFlight.values()) if (!p.settled && p.method === 'tick/call' && (!newest || p.id! > newest.id!)) newest = p;
    if (newest) {
      this.settle(newest, { ok: false, outcome: 'unknown', sent: true, id: newest.id, reason: `response buffers across the Tick's in-flight calls passed ${this.limits.responseBuffersBytes} bytes; the newest call was failed` });
    }
  }

  // ───────────── the end ─────────────

  private violation(reason: string): void {
    this.finish({ reason: `protocol violation: ${reason}`, cause: 'violation', at: now() });
  }

  private finish(end: SessionEnd): void {
    if (this.end) return;
    this.end = end;
    this.partial = [];
    this.partialBytes = 0;
    for (const p of this.inFlight.values()) this.settle(p, { ok: false, outcome: 'unknown', sent: true, id: p.id, reason: `the session ended before the Tick answered: ${end.reason}` });
    this.inFlight.clear();
    for (const p of this.queue.splice(0)) this.settle(p, { ok: false, outcome: 'not_executed', sent: false, reason: `the session ended before the request was sent: ${end.reason}` });
    try {
      this.io.kill();
    } catch {
      // already gone
    }
    this.fire('ended', end);
  }
}

export type InitResult =
  | { ok: true; catalog: Catalog; state: TickState }
  | { ok: false; reason: string };

/**
 * Initialization exactly as 4.2: tick/describe, validation (5.3), then tick/read; each
 * request within `limits.initMs` and the whole within `limits.initMs` from `startedAt`.
 */
export async function initialize(session: TickSession, startedAt = Date.now()): Promise<InitResult> {
  const total = session.limits.initMs;
  const left = () => Math.max(1, Math.min(total, startedAt + total - Date.now()));
  const overall = (what: string) => `initialization passed ${total / 1000} s in all (${what})`;
  const d = await session.describe(left());
  if (!d.ok) {
    if (d.error) return { ok: false, reason: `tick/describe failed: ${d.error.message} (code ${d.error.code})` };
    return { ok: false, reason: d.reason?.includes('did not answer') && Date.now() - startedAt >= total ? overall(d.reason) : d.reason ?? 'tick/describe failed' };
  }
  if (Date.now() - startedAt >= total) return { ok: false, reason: overall('before tick/read') };
  const r = await session.read(left());
  if (!r.ok) {
    if (r.error) return { ok: false, reason: `tick/read failed: ${r.error.message} (code ${r.error.code})` };
    return { ok: false, reason: r.reason ?? 'tick/read failed' };
  }
  if (!session.catalog) return { ok: false, reason: session.end?.reason ?? 'the Tick has no valid catalog' };
  return { ok: true, catalog: session.catalog, state: r.result as TickState };
}

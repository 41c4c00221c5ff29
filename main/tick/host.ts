/**
 * The Tick host: the registry of instances (`hosted:<id>` Ticks, `shell:<pane-id>` plain
 * panes), opening (argv[0] resolved, a launcher in a new pane, initialization as 4.2),
 * closing, views, calls with a person's approval, input, and subscriptions. Installs the
 * contract's tick.* and approval.* requests on the Core.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import type { ApprovalRequest, InstanceInfo, Outcome, PaneInfo } from '../../preload/contract.ts';
import type { Core } from '../core.ts';
import type { PaneServiceApi } from '../services.ts';
import { listPackages, packageOpen } from '../tick-packages/find.ts';
import { Approvals } from './approvals.ts';
import { checkArgs, type TickDescriptor } from './describe.ts';
import { keysToBytes } from './keys.ts';
import { LIMITS, type Limits } from './limits.ts';
import { resolveCommand } from './process.ts';
import { type Runner, startDirect, startInPane } from './runner.ts';
import { initialize, type RpcError, type TickSession, type TickState } from './session.ts';
import { Subscriptions } from './subscriptions.ts';

export interface TickHostOptions {
  core?: Core;
  /** Ticks open in panes when there is a pane service; directly (no view) otherwise. */
  panes?: PaneServiceApi;
  /** Whether MCP tools may write (mutating calls from agents are refused while off). */
  mcpWrites?: () => boolean;
  env?: NodeJS.ProcessEnv;
  limits?: Partial<Limits>;
  /** Capture every chunk each way for every Tick (tests, `tick check`). */
  wire?: (instanceId: string, dir: 'in' | 'out', chunk: Buffer) => void;
}

export interface OpenRequest {
  /** The Tick's argv; or, instead, `package`. */
  command?: string[];
  /** An installed Tick package's name (or a package folder): its launch gives command, cwd and title. */
  package?: string;
  /** Where a package name's project packages are found (default cwd). */
  project?: string;
  cwd?: string;
  title?: string;
  /** Put the Tick's pane in the layout at once (default true). */
  view?: boolean;
}

export type OpenResult =
  | { ok: true; instance: InstanceInfo; paneId?: string }
  | { ok: false; error: string; screen?: string };

export interface CallOptions {
  /** The catalog revision the call was prepared against; the current one when absent. */
  revision?: string;
  /** The pane of the agent asking, for the approval card. */
  askingPaneId?: string;
  /** The call comes from an agent through MCP (the "MCP writes" setting applies). */
  viaMcp?: boolean;
  /** Aborted when the client gives up: a call still waiting for approval is then never sent. */
  signal?: AbortSignal;
}

/** A call as it went, for listeners (TickHost.onCall). */
export interface TickCallRecord {
  at: number;
  instanceId: string;
  title: string;
  tool: string;
  args: unknown;
  report: CallReport;
  askingPaneId?: string;
  tickPaneId?: string;
}

export interface CallReport {
  ok: boolean;
  outcome: Outcome;
  /** The tool's result: untrusted data from the Tick. */
  result?: unknown;
  error?: RpcError;
  /** The host's reason when the call failed for another reason than the Tick's error. */
  reason?: string;
  revision?: string;
  /** Whether the call needed a person, and their answer. */
  approval: 'not_needed' | ApprovalRequest['state'];
  approvalId?: string;
  sent: boolean;
}

interface Hosted {
  info: InstanceInfo;
  publicId: string;
  runner?: Runner;
  closing?: boolean;
}

const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
function newId(): string {
  let s = '';
  for (const b of randomBytes(10)) s += ID_ALPHABET[b % ID_ALPHABET.length];
  return s;
}

export class TickHost {
  readonly approvals: Approvals;
  readonly subscriptions: Subscriptions;
  readonly limits: Limits;
  private readonly hosted = new Map<string, Hosted>();
  private readonly core?: Core;
  private readonly panes?: PaneServiceApi;
  private readonly mcpWrites: () => boolean;
  /** The environment Ticks start with (and their prerequisites are checked against). */
  readonly env: NodeJS.ProcessEnv;
  private readonly wire?: TickHostOptions['wire'];
  /** Told of every call once it is over (the search index records them). */
  private readonly callListeners = new Set<(call: TickCallRecord) => void>();

  constructor(opts: TickHostOptions = {}) {
    this.core = opts.core;
    this.panes = opts.panes;
    this.mcpWrites = opts.mcpWrites ?? (() => true);
    this.env = opts.env ?? process.env;
    this.limits = { ...LIMITS, ...opts.limits };
    this.wire = opts.wire;
    this.approvals = new Approvals((a) => this.core?.emit('approval.changed', a), () => this.limits.approvalMs);
    this.subscriptions = new Subscriptions((id) => this.hosted.get(id)?.runner?.session);
  }

  // ───────────── instances ─────────────

  list(): InstanceInfo[] {
    const out = [...this.hosted.values()].map((h) => ({ ...h.info }));
    for (const p of this.panes?.list() ?? []) {
      if (p.kind === 'tick') continue;
      out.push(shellInfo(p));
    }
    return out;
  }

  get(instanceId: string): InstanceInfo | undefined {
    const h = this.hosted.get(instanceId);
    if (h) return { ...h.info };
    const pane = this.shellPane(instanceId);
    return pane ? shellInfo(pane) : undefined;
  }

  session(instanceId: string): TickSession | undefined {
    return this.hosted.get(instanceId)?.runner?.session;
  }

  async open(asked: OpenRequest): Promise<OpenResult> {
    const resolved = packageOpen(asked, this.env);
    if (!resolved.ok) return resolved;
    const req = resolved.request;
    if (!Array.isArray(req.command) || req.command.length === 0 || !req.command.every((a) => typeof a === 'string')) {
      return { ok: false, error: 'command must be a nonempty list of strings (argv), for example ["python3", "note.py"]; or give an installed Tick package\'s name as package' };
    }
    const cwd = req.cwd ?? this.env.HOME ?? os.homedir();
    if (!isDir(cwd)) return { ok: false, error: `the folder "${cwd}" does not exist; give the Tick an existing working directory` };
    let file: string;
    try {
      file = resolveCommand(req.command[0], cwd, this.env.PATH);
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
    const publicId = newId();
    const id = `hosted:${publicId}`;
    const title = typeof req.title === 'string' && req.title.trim() ? req.title.trim() : req.command.map((a) => a.split('/').pop()).join(' ');
    const h: Hosted = { publicId, info: { id, kind: '', title, status: 'starting' } };
    this.hosted.set(id, h);
    this.changed(h);
    const startedAt = Date.now();
    const wire = this.wire ? (dir: 'in' | 'out', chunk: Buffer) => this.wire!(id, dir, chunk) : undefined;
    try {
      h.runner = this.panes
        ? await startInPane(this.panes, { file, args: req.command.slice(1), cwd, instanceId: publicId, paneInstanceId: id, title, detached: req.view === false, limits: this.limits, wire })
        : startDirect([file, ...req.command.slice(1)], { cwd, instanceId: publicId, env: this.env, limits: this.limits, wire });
    } catch (e) {
      this.hosted.delete(id);
      this.changed({ ...h, info: { ...h.info, status: 'failed', reason: (e as Error).message } });
      return { ok: false, error: `the Tick could not be started: ${(e as Error).message}` };
    }
    const runner = h.runner;
    if (runner.paneId) h.info.paneId = runner.paneId;
    const session = runner.session;
    session.on('update', () => this.subscriptions.wake());
    session.on('catalog', (catalog, previous) => {
      this.approvals.invalidate(
        (a) => a.instanceId === id && a.revision !== catalog?.descriptor.revision,
        catalog
          ? `the Tick's tool catalog changed from revision "${previous}" to "${catalog.descriptor.revision}" before the call was sent (-32004); describe the Tick and prepare the call again`
          : 'the Tick\'s tool catalog became invalid before the call was sent',
      );
    });
    session.onEnd((end) => {
      this.approvals.invalidate((a) => a.instanceId === id, `the Tick's session ended before the call was sent: ${end.reason}`);
      this.subscriptions.wake();
      if (h.info.status === 'ready') {
        h.info = { ...h.info, status: 'ended', reason: end.reason };
        this.changed(h);
        this.core?.emit('notify', { title: `Tick ended: ${h.info.title}`, body: end.reason, ...(h.info.paneId ? { paneId: h.info.paneId } : {}) });
      }
    });

    const init = await initialize(session, startedAt);
    if (!init.ok) {
      // Let the view's screen catch up with what the Tick printed, then report it.
      await new Promise((r) => setTimeout(r, 150));
      const screen = runner.screen().trim().slice(0, this.limits.failureScreenChars);
      session.close(`initialization failed: ${init.reason}`);
      await runner.terminate();
      if (runner.paneId) this.panes?.close(runner.paneId);
      h.info = { ...h.info, status: 'failed', reason: init.reason };
      this.changed(h);
      this.hosted.delete(id);
      this.core?.emit('notify', { title: `Tick failed to open: ${title}`, body: init.reason });
      return { ok: false, error: `the Tick failed to initialize: ${init.reason}`, screen };
    }
    h.info = { ...h.info, kind: init.catalog.descriptor.kind, title: req.title?.trim() || init.catalog.descriptor.title, status: 'ready' };
    if (runner.paneId) {
      try {
        this.panes?.patch(runner.paneId, { title: h.info.title, instanceId: id });
      } catch {
        // the pane went away meanwhile: the session end says so
      }
    }
    if (session.ended) {
      h.info = { ...h.info, status: 'ended', reason: session.end?.reason };
    }
    this.changed(h);
    return { ok: true, instance: { ...h.info }, ...(runner.paneId ? { paneId: runner.paneId } : {}) };
  }

  /** End the instance: SIGTERM to its process group, SIGKILL after the grace, its pane closed. */
  async close(instanceId: string): Promise<{ ok: boolean; error?: string }> {
    const h = this.hosted.get(instanceId);
    if (!h) return { ok: false, error: `there is no hosted instance "${instanceId}"; list instances to see their ids` };
    if (h.closing) return { ok: true };
    h.closing = true;
    h.runner?.session.close('the instance was closed');
    await h.runner?.terminate();
    if (h.runner?.paneId && this.panes?.get(h.runner.paneId)) this.panes.close(h.runner.paneId);
    this.hosted.delete(instanceId);
    this.subscriptions.dropInstance(instanceId);
    this.core?.emit('tick.changed', { ...h.info, status: 'ended', reason: 'closed' });
    return { ok: true };
  }

  /** Show or hide the Tick's view; the session runs on either way. */
  view(instanceId: string, open: boolean): { ok: boolean; error?: string } {
    const h = this.hosted.get(instanceId);
    const paneId = h?.runner?.paneId ?? this.shellPane(instanceId)?.id;
    if (!paneId || !this.panes) return { ok: false, error: `"${instanceId}" has no view to ${open ? 'show' : 'hide'}; only Ticks opened in panes and shell: instances have one` };
    try {
      if (open) this.panes.attach(paneId);
      else this.panes.detach(paneId);
      return { ok: true };
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
  }

  // ───────────── protocol ─────────────

  private ready(instanceId: string): { session: TickSession; descriptor: TickDescriptor } | { error: string } {
    const h = this.hosted.get(instanceId);
    if (!h) {
      if (this.shellPane(instanceId)) return { error: `"${instanceId}" is a plain terminal pane, not a Tick: read its screen with TickRead and type with TickManage action "input"` };
      return { error: `there is no instance "${instanceId}"; list instances with TickManage action "list"` };
    }
    const session = h.runner?.session;
    if (!session || h.info.status === 'starting') return { error: `"${instanceId}" is still starting; try again in a moment` };
    if (session.ended) return { error: `"${instanceId}" has ended (${session.end?.reason}); open it again` };
    if (!session.catalog) return { error: `"${instanceId}" has no valid catalog (${session.catalogProblem ?? 'not described'})` };
    return { session, descriptor: session.catalog.descriptor };
  }

  /** The descriptor (re-described from the Tick when `fresh`). */
  async describe(instanceId: string, fresh = false): Promise<{ ok: true; descriptor: TickDescriptor } | { ok: false; error: string }> {
    const r = this.ready(instanceId);
    if ('error' in r) return { ok: false, error: r.error };
    if (fresh) {
      const d = await (r.session.redescribe() ?? r.session.describe());
      if (!d.ok) return { ok: false, error: d.error ? `tick/describe failed: ${d.error.message}` : d.reason ?? 'tick/describe failed' };
    }
    const c = r.session.catalog;
    return c ? { ok: true, descriptor: c.descriptor } : { ok: false, error: r.session.catalogProblem ?? 'the Tick has no valid catalog' };
  }

  async read(instanceId: string): Promise<{ ok: true; state: TickState } | { ok: false; error: string }> {
    const r = this.ready(instanceId);
    if ('error' in r) return { ok: false, error: r.error };
    const res = await r.session.read();
    if (!res.ok) return { ok: false, error: res.error ? `tick/read failed: ${res.error.message} (code ${res.error.code})` : res.reason ?? 'tick/read failed' };
    return { ok: true, state: res.result as TickState };
  }

  /**
   * Call a tool. A mutating tool waits for a person's approval (bound to the revision);
   * nothing is sent unless approved, and nothing is ever sent twice.
   */
  async call(instanceId: string, tool: string, args: unknown, opts: CallOptions = {}): Promise<CallReport> {
    const report = await this.callOnce(instanceId, tool, args, opts);
    const info = this.get(instanceId);
    const record: TickCallRecord = { at: Date.now(), instanceId, title: info?.title ?? instanceId, tool, args, report, ...(opts.askingPaneId ? { askingPaneId: opts.askingPaneId } : {}), ...(info?.paneId ? { tickPaneId: info.paneId } : {}) };
    for (const fn of this.callListeners) {
      try {
        fn(record);
      } catch {
        // a listener's failure is not the call's
      }
    }
    return report;
  }

  /** Listen to every call once it is over; returns the unsubscribe. */
  onCall(listener: (call: TickCallRecord) => void): () => void {
    this.callListeners.add(listener);
    return () => this.callListeners.delete(listener);
  }

  private async callOnce(instanceId: string, tool: string, args: unknown, opts: CallOptions): Promise<CallReport> {
    const refuse = (reason: string, code?: number, approval: CallReport['approval'] = 'not_needed', approvalId?: string): CallReport => ({
      ok: false, outcome: 'not_executed', reason, sent: false, approval, ...(approvalId ? { approvalId } : {}), ...(code ? { error: { code, message: reason } } : {}),
    });
    const r = this.ready(instanceId);
    if ('error' in r) return refuse(r.error);
    const revision = opts.revision ?? r.descriptor.revision;
    const bad = checkArgs(r.session.catalog!, tool, args ?? {});
    if (bad) return { ...refuse(bad, -32602), revision };
    if (revision !== r.descriptor.revision) {
      return { ...refuse(`the call was prepared against catalog revision "${revision}" but the Tick's catalog is now "${r.descriptor.revision}"; describe the Tick and prepare the call again`, -32004), revision };
    }
    const tooldef = r.session.catalog!.tools.get(tool)!.tool;
    let approval: CallReport['approval'] = 'not_needed';
    let approvalId: string | undefined;
    if (tooldef.mutates) {
      if (opts.viaMcp && !this.mcpWrites()) {
        return { ...refuse(`"${tool}" changes things and the "MCP writes" setting is off; a person can turn it on in Settings`), revision };
      }
      const h = this.hosted.get(instanceId)!;
      const asked = this.approvals.ask({
        instanceId,
        ...(opts.askingPaneId ? { askingPaneId: opts.askingPaneId } : {}),
        ...(h.runner?.paneId ? { tickPaneId: h.runner.paneId } : {}),
        tool,
        description: tooldef.description,
        args: args ?? {},
        revision,
      });
      approvalId = asked.approval.id;
      this.core?.emit('notify', { title: `Approval needed: ${tool} on ${h.info.title}`, body: `An agent asks to call ${tool} with ${JSON.stringify(args ?? {}).slice(0, 200)}.`, ...(h.runner?.paneId ? { paneId: h.runner.paneId } : {}) });
      const cancel = () => this.approvals.invalidate((x) => x.id === asked.approval.id, 'the agent cancelled the call before it was approved, so it was not sent');
      if (opts.signal?.aborted) cancel();
      opts.signal?.addEventListener('abort', cancel, { once: true });
      const decided = await asked.decided;
      opts.signal?.removeEventListener('abort', cancel);
      approval = decided.state;
      if (decided.state !== 'approved') return { ...refuse(decided.reason ?? `the call was ${decided.state}`, decided.state === 'invalidated' ? -32004 : undefined, approval, approvalId), revision };
    }
    const res = await r.session.call(tool, args ?? {}, revision);
    return {
      ok: res.ok,
      outcome: res.outcome,
      ...(res.ok ? { result: res.result } : {}),
      ...(res.error ? { error: res.error } : {}),
      ...(res.reason ? { reason: res.reason } : {}),
      revision,
      approval,
      ...(approvalId ? { approvalId } : {}),
      sent: res.sent,
    };
  }

  /** Where input to an instance would go and what it would type, or why it cannot be typed. */
  inputTarget(instanceId: string, text: string | undefined, keys: string[] | undefined): { ok: true; paneId: string; data: string; shell: boolean } | { ok: false; error: string } {
    if (!this.panes) return { ok: false, error: 'typing needs the window\'s panes; this host runs Ticks without views' };
    const shell = this.shellPane(instanceId);
    const paneId = typeof instanceId === 'string' ? this.hosted.get(instanceId)?.runner?.paneId ?? shell?.id : undefined;
    if (!paneId) return { ok: false, error: `there is no instance "${instanceId}" with a terminal to type into; list instances with TickManage action "list"` };
    const bytes = keysToBytes(text, keys);
    if (!bytes.ok) return { ok: false, error: bytes.error };
    return { ok: true, paneId, data: bytes.data, shell: !!shell };
  }

  /** Type into a hosted Tick's view or a shell pane: plain text, then named keys. */
  input(instanceId: string, text: string | undefined, keys: string[] | undefined): { ok: boolean; error?: string } {
    const target = this.inputTarget(instanceId, text, keys);
    if (!target.ok) return target;
    const { paneId, data } = target;
    if (!this.panes) return { ok: false, error: 'typing needs the window\'s panes; this host runs Ticks without views' };
    const bytes = { data };
    try {
      this.panes.write(paneId, bytes.data);
      return { ok: true };
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
  }

  /** A shell: instance's screen as text. */
  screen(instanceId: string): { ok: true; screen: string; cols: number; rows: number; title: string } | { ok: false; error: string } {
    const pane = this.shellPane(instanceId);
    if (!pane || !this.panes) return { ok: false, error: `there is no shell instance "${instanceId}"; list instances with TickManage action "list"` };
    return { ok: true, screen: this.panes.screenText(pane.id), cols: pane.cols, rows: pane.rows, title: pane.title };
  }

  private shellPane(instanceId: string): PaneInfo | undefined {
    if (typeof instanceId !== 'string' || !instanceId.startsWith('shell:') || !this.panes) return undefined;
    const pane = this.panes.get(instanceId.slice('shell:'.length));
    return pane && pane.kind !== 'tick' ? pane : undefined;
  }

  private changed(h: Hosted): void {
    this.core?.emit('tick.changed', { ...h.info });
  }

  // ───────────── the contract ─────────────

  install(core: Core): void {
    core.handle('tick.open', async (req) => {
      const r = await this.open({ command: req.command, package: req.package, cwd: req.cwd, title: req.title });
      if (!r.ok) return r;
      return { ok: true, instance: r.instance, paneId: r.paneId ?? '' };
    });
    core.handle('tick.list', () => this.list());
    core.handle('tick.packages', (req) => listPackages({ env: this.env, ...(typeof req.cwd === 'string' ? { cwd: req.cwd } : {}) }));
    const needId = (req: { instanceId?: unknown }, what: string): void => {
      if (typeof req.instanceId !== 'string' || !req.instanceId) throw new Error(`${what} needs instanceId as a string (hosted:<id> or shell:<pane-id>); list instances with tick.list`);
    };
    core.handle('tick.close', async (req) => {
      needId(req, 'tick.close');
      const r = await this.close(req.instanceId);
      if (!r.ok) throw new Error(r.error);
    });
    core.handle('tick.view', (req) => {
      needId(req, 'tick.view');
      return this.view(req.instanceId, req.open === true);
    });
    core.handle('approval.list', () => this.approvals.list());
    core.handle('approval.answer', (req) => this.approvals.answer(req.approvalId, req.approve));
    core.onDispose(() => this.dispose());
  }

  /** Close every hosted Tick (its session ended, its pane's process ended). */
  async closeAll(): Promise<void> {
    await Promise.all([...this.hosted.keys()].map((id) => this.close(id)));
  }

  async dispose(): Promise<void> {
    this.approvals.dispose();
    await this.closeAll();
  }
}

function shellInfo(p: PaneInfo): InstanceInfo {
  return { id: `shell:${p.id}`, kind: 'shell', title: p.title, status: p.status === 'running' ? 'ready' : 'ended', paneId: p.id };
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

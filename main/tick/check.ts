/**
 * `tick check`: run a Tick under the host's session engine (directly, with pipes) and
 * check every Tick-side MUST the host can observe. Returns one line per rule.
 */
import { isDeepStrictEqual } from 'node:util';
import type { TickTool } from './describe.ts';
import { type DirectTick, spawnDirect } from './process.ts';
import { sampleCall } from './sample.ts';
import { initialize, type RequestResult } from './session.ts';

export interface RuleResult {
  rule: string;
  /** `n/a`: nothing to observe for this Tick. */
  status: 'pass' | 'fail' | 'n/a';
  detail?: string;
}

export interface CheckOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** How long to watch for updates after the checks (ms). */
  watchMs?: number;
  /** Skip probes (invalid calls) against mutating tools. */
  safe?: boolean;
  /** Describe and read must answer within this (ms). */
  promptMs?: number;
  /** Wait this long for an exit after stdin EOF or SIGTERM (ms). */
  exitMs?: number;
  /**
   * Valid calls to make (`--call TOOL JSON`), mutating tools included, so that updates
   * which only follow a call are checked too. Without any, one call of a non-mutating
   * tool with arguments built from its schema, when there is such a tool.
   */
  calls?: Array<{ tool: string; args: unknown }>;
}

interface Capture {
  out: Buffer[];
}

/** Arguments that break a tool's input_schema, when the schema says enough to break it. */
export function breakingArgs(schema: Record<string, unknown>): Record<string, unknown> | undefined {
  const props = (schema.properties && typeof schema.properties === 'object' ? schema.properties : {}) as Record<string, Record<string, unknown>>;
  if (Array.isArray(schema.required) && schema.required.length > 0) return {};
  if (schema.additionalProperties === false) return { tick_check_unexpected_argument: true };
  for (const [name, p] of Object.entries(props)) {
    const wrong: Record<string, unknown> = { string: 12345, integer: 'not a number', number: 'not a number', boolean: 'not a boolean', array: 'not an array', object: 'not an object' };
    if (typeof p?.type === 'string' && p.type in wrong) return { [name]: wrong[p.type] };
  }
  return undefined;
}

function rawLines(cap: Capture): { lines: string[]; partial: boolean } {
  const text = Buffer.concat(cap.out).toString('utf8');
  const parts = text.split('\n');
  const last = parts.pop() ?? '';
  return { lines: parts, partial: last.length > 0 };
}

async function waitExit(t: DirectTick, ms: number): Promise<boolean> {
  return Promise.race([t.exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);
}

export async function checkTick(command: string[], opts: CheckOptions = {}): Promise<RuleResult[]> {
  const results: RuleResult[] = [];
  const add = (rule: string, ok: boolean | 'n/a', detail?: string) => results.push({ rule, status: ok === 'n/a' ? 'n/a' : ok ? 'pass' : 'fail', ...(detail ? { detail } : {}) });
  const promptMs = opts.promptMs ?? 1000;
  const exitMs = opts.exitMs ?? 5000;
  const cap: Capture = { out: [] };
  const sent: number[] = [];
  let t: DirectTick;
  try {
    t = spawnDirect(command, {
      cwd: opts.cwd,
      env: opts.env,
      instanceId: `tick-check-${process.pid}`,
      wire: (dir, chunk) => {
        if (dir === 'out') cap.out.push(chunk);
        else sent.push((JSON.parse(chunk.toString('utf8')) as { id: number }).id);
      },
    });
  } catch (e) {
    add('starts', false, (e as Error).message);
    return results;
  }
  const s = t.session;
  try {
    // ── initialization: describe, validate, read, within 10 s ──
    const t0 = Date.now();
    const init = await initialize(s, t0);
    add('initializes: tick/describe, a valid descriptor (5.3), tick/read, within 10 s', init.ok, init.ok ? `${Date.now() - t0} ms` : init.reason);
    if (!init.ok) {
      await t.terminate(500);
      return results;
    }
    const descriptor = init.catalog.descriptor;

    // ── describe and read: prompt, free of side effects ──
    const timed = async (f: () => Promise<RequestResult>) => {
      const a = Date.now();
      const r = await f();
      return { r, ms: Date.now() - a };
    };
    const describes = [];
    const reads = [];
    for (let i = 0; i < 3; i++) {
      const u0 = s.counters.updates;
      describes.push(await timed(() => s.describe()));
      const r1 = await timed(() => s.read());
      const r2 = await timed(() => s.read());
      reads.push({ r1, r2, quiet: s.counters.updates === u0 });
    }
    const slow = [...describes.map((d) => d.ms), ...reads.flatMap((r) => [r.r1.ms, r.r2.ms])];
    const allOk = describes.every((d) => d.r.ok) && reads.every((r) => r.r1.r.ok && r.r2.r.ok);
    add('tick/describe and tick/read answer promptly', allOk && Math.max(...slow) <= promptMs, allOk ? `slowest ${Math.max(...slow)} ms (limit ${promptMs} ms)` : firstFailure([...describes.map((d) => d.r), ...reads.flatMap((r) => [r.r1.r, r.r2.r])]));
    const sameDescriptor = describes.every((d) => isDeepStrictEqual(d.r.result, descriptor));
    const quietPairs = reads.filter((r) => r.quiet && r.r1.r.ok && r.r2.r.ok);
    const sameState = quietPairs.every((p) => {
      const a = p.r1.r.result as { seq: number; data: unknown };
      const b = p.r2.r.result as { seq: number; data: unknown };
      return a.seq === b.seq && isDeepStrictEqual(a.data, b.data);
    });
    const noUpdates = reads.every((r) => r.quiet);
    add('tick/describe and tick/read are free of side effects', allOk && sameDescriptor && sameState,
      !sameDescriptor ? 'the descriptor changed between describes' : !sameState ? 'state changed between two reads with no update between them' : noUpdates ? 'repeated describes and reads left state unchanged' : 'updates arrived meanwhile; state unchanged where none did');

    // ── calls: -32004 on a stale revision, -32602 on an unknown tool and on bad args ──
    const candidates = descriptor.tools.filter((tool) => !(opts.safe && tool.mutates));
    const ordered = [...candidates.filter((tool) => !tool.mutates), ...candidates.filter((tool) => tool.mutates)];
    const withBreak = ordered.map((tool) => ({ tool, args: breakingArgs(tool.input_schema) })).filter((x) => x.args !== undefined) as Array<{ tool: TickTool; args: Record<string, unknown> }>;
    if (ordered.length === 0) {
      add('-32004 on a stale revision, without executing', 'n/a', opts.safe ? 'only mutating tools, and --safe was given' : 'the Tick has no tools');
    } else {
      // Breaking args too, when possible: a Tick that ignores the revision then still cannot act.
      const probe = withBreak[0] ?? { tool: ordered[0], args: {} };
      const r = await s.probe('tick/call', { tool: probe.tool.name, args: probe.args, revision: `${descriptor.revision}\u0000stale` });
      add('-32004 on a stale revision, without executing', r.error?.code === -32004, describeAnswer(r, `tool "${probe.tool.name}"`));
    }
    {
      const r = await s.probe('tick/call', { tool: 'tick-check-no-such-tool', args: {}, revision: descriptor.revision });
      add('-32602 on an unknown tool', r.error?.code === -32602, describeAnswer(r, 'tool "tick-check-no-such-tool"'));
    }
    if (withBreak.length === 0) {
      add('-32602 on arguments that break input_schema', 'n/a', opts.safe && descriptor.tools.some((x) => x.mutates) ? 'no non-mutating tool has a schema that arguments can break (--safe)' : 'no tool has a schema that arguments can break');
    } else {
      const { tool, args } = withBreak[0];
      const r = await s.probe('tick/call', { tool: tool.name, args, revision: descriptor.revision });
      add('-32602 on arguments that break input_schema', r.error?.code === -32602, describeAnswer(r, `tool "${tool.name}" with ${JSON.stringify(args)}`));
    }

    // ── valid calls: the ones asked for, else one of a non-mutating tool (its updates are checked below) ──
    const asked = opts.calls ?? [];
    const own = asked.length === 0 && !s.ended ? sampleCall(init.catalog.tools) : undefined;
    const calls = asked.length ? asked : own ? [own] : [];
    const made: string[] = [];
    for (const c of calls) {
      const what = `call "${c.tool}" ${JSON.stringify(c.args)}${asked.length ? '' : ' (a non-mutating tool, arguments built from its schema)'}`;
      if (s.ended) {
        add(`a valid call is answered: ${what}`, 'n/a', `not sent: the session had ended (${s.end!.reason})`);
        continue;
      }
      const r = await s.call(c.tool, c.args, descriptor.revision);
      if (!r.sent) {
        add(`a valid call is answered: ${what}`, 'n/a', `not sent: ${r.reason ?? r.error?.message ?? 'refused by the host'}`);
        continue;
      }
      made.push(c.tool);
      const answered = r.ok || (r.error !== undefined && !r.reason);
      add(`a valid call is answered: ${what}`, answered, r.ok ? 'answered with a result' : r.error && !r.reason ? `answered with error ${r.error.code} (${r.error.message})` : r.reason ?? 'no answer');
    }

    // ── updates, watched for a while ──
    const watchMs = opts.watchMs ?? 1000;
    await new Promise((r) => setTimeout(r, watchMs));
    const why = made.length
      ? `no update came in the run, ${made.length} valid call(s) included (${made.join(', ')}; watched ${watchMs} ms more)`
      : asked.length
        ? `no update came, and none of the --call calls could be sent`
        : `no update came, and no valid call was made: ${descriptor.tools.some((x) => !x.mutates) ? 'no non-mutating tool accepts arguments built from its schema' : descriptor.tools.length ? 'every tool mutates' : 'the Tick has no tools'}; give one with --call TOOL JSON`;
    add('updates carry non-null data and strictly rising seq (8.2)', s.ended ? false : s.counters.updates === 0 ? 'n/a' : true,
      s.ended ? s.end!.reason : s.counters.updates === 0 ? `unchecked: ${why}` : `${s.counters.updates} update(s), all valid`);
    const floorBreak = reads.flatMap((r) => [r.r1.r, r.r2.r]).find((r) => r.reason?.includes('read floor'));
    const badRead = reads.flatMap((r) => [r.r1.r, r.r2.r]).find((r) => !r.ok);
    add('read results keep the seq rules (6.3)', !floorBreak && !badRead, floorBreak?.reason ?? badRead?.reason ?? `${reads.length * 2} reads at or above their floor`);
  } finally {
    // ── the wire as a whole ──
    const ended = s.end?.reason;
    const { lines, partial } = rawLines(cap);
    const bad = lines.find((l) => {
      try {
        const m = JSON.parse(l) as Record<string, unknown>;
        return !m || typeof m !== 'object' || Array.isArray(m) || m.jsonrpc !== '2.0';
      } catch {
        return true;
      }
    });
    add('standard output: only protocol messages, one complete line each', !bad && !partial && !(ended && /violation/.test(ended)),
      bad !== undefined ? `this line is not a JSON-RPC 2.0 message: ${JSON.stringify(bad.slice(0, 120))}` : partial ? 'output ends inside a line' : ended && /violation/.test(ended) ? ended : `${lines.length} lines`);
    const ids = new Map<number, number>();
    let nullId = false;
    for (const l of lines) {
      try {
        const m = JSON.parse(l) as Record<string, unknown>;
        if ('id' in m && m.id === null) nullId = true;
        if (typeof m.id === 'number' && typeof m.method !== 'string') ids.set(m.id, (ids.get(m.id) ?? 0) + 1);
      } catch {
        // judged above
      }
    }
    add('no response with id: null', !nullId);
    const twice = [...ids.entries()].filter(([, n]) => n > 1).map(([id]) => id);
    const unanswered = sent.filter((id) => !ids.has(id));
    const stray = [...ids.keys()].filter((id) => !sent.includes(id));
    add('exactly one response per request, with its id', twice.length === 0 && unanswered.length === 0 && stray.length === 0,
      twice.length ? `ids answered more than once: ${twice.join(', ')}` : unanswered.length ? `requests never answered: ${unanswered.join(', ')}` : stray.length ? `responses to ids never sent: ${stray.join(', ')}` : `${sent.length} requests, ${sent.length} responses`);
  }

  // ── exit on standard-input EOF ──
  if (!s.ended) {
    t.child.stdin?.end();
    const gone = await waitExit(t, exitMs);
    add('exits on standard-input EOF', gone, gone ? undefined : `still running ${exitMs / 1000} s after EOF`);
  } else {
    add('exits on standard-input EOF', 'n/a', 'the session had ended already');
  }
  await t.terminate(500);

  // ── exit on SIGTERM (a second run) ──
  let u: DirectTick | undefined;
  try {
    u = spawnDirect(command, { cwd: opts.cwd, env: opts.env, instanceId: `tick-check-${process.pid}-2` });
    const init = await initialize(u.session);
    if (!init.ok) {
      add('exits on SIGTERM', 'n/a', `the second run did not initialize: ${init.reason}`);
    } else {
      process.kill(-u.child.pid!, 'SIGTERM');
      const gone = await waitExit(u, exitMs);
      add('exits on SIGTERM', gone, gone ? undefined : `still running ${exitMs / 1000} s after SIGTERM`);
    }
  } catch (e) {
    add('exits on SIGTERM', false, (e as Error).message);
  } finally {
    await u?.terminate(500);
  }
  const err = t.stderr().trim();
  if (err) results.push({ rule: 'note: the Tick wrote to standard error (it shows in the view; diagnostics SHOULD go to a log file)', status: 'n/a', detail: JSON.stringify(err.slice(0, 200)) });
  return results;
}

function firstFailure(rs: RequestResult[]): string {
  const f = rs.find((r) => !r.ok);
  return f ? (f.error ? `error ${f.error.code}: ${f.error.message}` : f.reason ?? 'failed') : 'failed';
}

function describeAnswer(r: RequestResult, what: string): string {
  if (r.error) return `${what}: error ${r.error.code} (${r.error.message})`;
  if (r.ok) return `${what}: answered with a result, not an error`;
  return `${what}: ${r.reason ?? 'no answer'}`;
}

/**
 * Text from a Tick or a package made safe to print on a terminal: control characters
 * (an escape sequence in an error message or a description) are shown as \xNN.
 */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** One printed line per rule. */
export function formatResults(results: RuleResult[]): string {
  return results.map((r) => `${r.status === 'pass' ? 'PASS' : r.status === 'fail' ? 'FAIL' : 'N/A '}  ${r.rule}${r.detail ? ` — ${printable(r.detail)}` : ''}`).join('\n');
}

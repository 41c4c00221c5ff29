/**
 * What a Chromium trace of one window's attach says, on the page's clock (ms from navigation):
 * the page's main-thread tasks of at least `minMs` with what filled them, each request's
 * send / response / finish, the WebSocket's creation and handshake, and the page's own marks.
 * Used by bench/attach-profile.ts (`TD_BENCH_ATTACH_TRACE=1`). Not part of `npm run bench`.
 */

interface Ev { name: string; cat: string; ph: string; ts: number; dur?: number; pid: number; tid: number; args?: { data?: Record<string, unknown>; name?: string } & Record<string, unknown> }

/** The trace categories the summary reads. */
export const TRACE_CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'toplevel', 'blink.user_timing', 'v8.execute', 'loading', 'netlog', 'disabled-by-default-netlog', 'disabled-by-default-v8.cpu_profiler'];

/**
 * Lines describing the trace. `marks`: the page's marks as performance.now() gives them
 * (their trace twin sets the clock: trace ts - mark time).
 */
export function summarize(json: string, marks: Record<string, number>, minMs = 20): string[] {
  const evs = (JSON.parse(json) as { traceEvents: Ev[] }).traceEvents;
  const threadName = new Map<string, string>();
  for (const e of evs) if (e.ph === 'M' && e.name === 'thread_name') threadName.set(`${e.pid}:${e.tid}`, String(e.args?.name));
  // The page's clock: a mark seen both in the trace and in the page.
  let origin: number | undefined;
  for (const e of evs) {
    if (e.cat.includes('blink.user_timing') && marks[e.name] !== undefined) {
      origin = e.ts / 1000 - marks[e.name]!;
      break;
    }
  }
  if (origin === undefined) return ['trace: no mark of the page found in it'];
  const at = (ts: number) => Math.round(ts / 1000 - origin!);
  // The page's navigation on the monotonic clock (µs), to place another process's CPU profile (bench/attach-profile.ts).
  (globalThis as { __tdTraceOrigin?: number }).__tdTraceOrigin = origin * 1000;
  const mainTid = (() => {
    for (const e of evs) if (e.cat.includes('blink.user_timing') && marks[e.name] !== undefined) return `${e.pid}:${e.tid}`;
    return '';
  })();
  const out: string[] = [];
  // Requests and the socket.
  const req = new Map<string, { url: string; send?: number; resp?: number; fin?: number }>();
  const sock: string[] = [];
  for (const e of evs) {
    const d = e.args?.data ?? {};
    if (e.name === 'ResourceSendRequest') req.set(String(d.requestId), { url: String(d.url), send: at(e.ts) });
    else if (e.name === 'ResourceReceiveResponse') { const r = req.get(String(d.requestId)); if (r) r.resp = at(e.ts); }
    else if (e.name === 'ResourceFinish') { const r = req.get(String(d.requestId)); if (r) r.fin = at(e.ts); }
    else if (/^WebSocket/.test(e.name)) sock.push(`${e.name} ${at(e.ts)}`);
  }
  out.push(`requests (send / response / finish, on the page's thread): ${[...req.values()].map((r) => `${r.url.replace(/^.*\//, '').replace(/\?.*/, '').replace(/-[\w-]{8}\./, '.') || '/'} ${r.send}/${r.resp ?? '-'}/${r.fin ?? '-'}`).join(', ')}`);
  out.push(`socket: ${sock.join(', ')}`);
  // The main thread's tasks.
  const main = evs.filter((e) => `${e.pid}:${e.tid}` === mainTid && e.ph === 'X' && e.dur !== undefined).sort((a, b) => a.ts - b.ts);
  const tasks = main.filter((e) => e.name === 'ThreadControllerImpl::RunTask' || e.name === 'RunTask');
  const lines: string[] = [];
  for (const t of tasks) {
    if (t.dur! / 1000 < minMs) continue;
    const inside = main.filter((e) => e !== t && e.ts >= t.ts && e.ts + e.dur! <= t.ts + t.dur! && e.dur! / 1000 >= 3);
    const label = (e: Ev) => {
      const d = e.args?.data ?? {};
      const what = d.url ? String(d.url).replace(/^.*\//, '').replace(/\?.*/, '') : d.type ? String(d.type) : d.functionName ? String(d.functionName) : '';
      return `${e.name}${what ? `(${what})` : ''} ${Math.round(e.dur! / 1000)}`;
    };
    // Each child once, the outermost ones (those inside no other child), largest first.
    const outer = inside.filter((e) => !inside.some((o) => o !== e && o.ts <= e.ts && o.ts + o.dur! >= e.ts + e.dur! && o.dur! > e.dur!));
    lines.push(`  ${at(t.ts)}+${Math.round(t.dur! / 1000)}: ${outer.slice(0, 6).map(label).join(', ')}`);
  }
  out.push(`main-thread tasks of ${minMs} ms or more (start+ms: what filled them, ms):`);
  out.push(...lines);
  // The CPU profile's samples (V8's sampler, ~1 ms apart) in each task of 40 ms or more: the functions most on the stack.
  const samples = profileSamples(evs, mainTid.split(':')[0]!);
  for (const t of tasks) {
    if (t.dur! / 1000 < 40) continue;
    const within = samples.filter((s) => s.ts >= t.ts && s.ts <= t.ts + t.dur!);
    if (!within.length) continue;
    const self = new Map<string, number>();
    const incl = new Map<string, number>();
    for (const s of within) {
      self.set(s.stack[0]!, (self.get(s.stack[0]!) ?? 0) + 1);
      for (const f of new Set(s.stack)) incl.set(f, (incl.get(f) ?? 0) + 1);
    }
    const top = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `${k} ${v}`).join(', ');
    out.push(`  task ${at(t.ts)}+${Math.round(t.dur! / 1000)}, ${within.length} samples; self: ${top(self, 10)}`);
    out.push(`    on the stack: ${top(incl, 40)}`);
  }
  // Other threads of note (the network service's), to see when the handshake went out.
  void threadName;
  return out;
}

/** V8's CPU profile samples from the trace (ProfileChunk events) of the renderer `pid`: each with its time and stack, innermost first. */
function profileSamples(evs: Ev[], pid: string): Array<{ ts: number; stack: string[] }> {
  const nodes = new Map<string, { name: string; parent?: number }>();
  const out: Array<{ ts: number; stack: string[] }> = [];
  let start: number | undefined;
  const byProfile = new Map<string, number>();
  for (const e of evs) {
    if (String(e.pid) !== pid) continue;
    if (e.name === 'Profile') byProfile.set(String((e as unknown as { id: string }).id), Number((e.args?.data as { startTime?: number })?.startTime));
    if (e.name !== 'ProfileChunk') continue;
    const id = String((e as unknown as { id: string }).id);
    start = byProfile.get(id) ?? start;
    const d = e.args?.data as { cpuProfile?: { nodes?: Array<{ id: number; parent?: number; callFrame: { functionName: string; url?: string; lineNumber?: number } }>; samples?: number[] }; timeDeltas?: number[] };
    for (const n of d.cpuProfile?.nodes ?? []) {
      const url = (n.callFrame.url ?? '').replace(/^.*\//, '').replace(/\?.*/, '').replace(/-[\w-]{8}\./, '.');
      nodes.set(`${id}:${n.id}`, { name: `${n.callFrame.functionName || '(anon)'}${url ? `@${url}:${n.callFrame.lineNumber ?? ''}` : ''}`, parent: n.parent });
    }
    let t = byProfile.get(id) ?? 0;
    const ss = d.cpuProfile?.samples ?? [];
    const dt = d.timeDeltas ?? [];
    for (let i = 0; i < ss.length; i++) {
      t += dt[i] ?? 0;
      const stack: string[] = [];
      let n: number | undefined = ss[i];
      while (n !== undefined) {
        const node = nodes.get(`${id}:${n}`);
        if (!node) break;
        stack.push(node.name);
        n = node.parent;
      }
      out.push({ ts: t, stack });
      byProfile.set(id, t);
    }
  }
  return out;
}

/**
 * Another process's V8 CPU profile (`node --cpu-prof`: the service's), between `fromUs` and
 * `toUs` on the monotonic clock (Chromium's trace and V8 share it on Linux): per slice of
 * `stepMs`, the functions most on the stack, and how much of the slice it was busy.
 */
export function serviceSlices(profileJson: string, fromUs: number, toUs: number, stepMs = 25): string[] {
  const p = JSON.parse(profileJson) as { nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }>; startTime: number; samples: number[]; timeDeltas: number[] };
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const name = (id: number) => {
    const f = byId.get(id)!.callFrame;
    return `${f.functionName || '(anon)'}${f.url ? `@${f.url.replace(/^.*\//, '')}:${f.lineNumber}` : ''}`;
  };
  const out: string[] = [];
  let t = p.startTime;
  const slices = new Map<number, { n: number; busy: number; incl: Map<string, number> }>();
  for (let i = 0; i < p.samples.length; i++) {
    t += p.timeDeltas[i] ?? 0;
    if (t < fromUs || t > toUs) continue;
    const k = Math.floor((t - fromUs) / 1000 / stepMs);
    const s = slices.get(k) ?? { n: 0, busy: 0, incl: new Map<string, number>() };
    slices.set(k, s);
    s.n++;
    const top = name(p.samples[i]!);
    if (top === '(idle)') continue;
    s.busy++;
    const seen = new Set<string>();
    for (let id: number | undefined = p.samples[i]; id !== undefined; id = parent.get(id)) {
      const nm = name(id);
      if (seen.has(nm) || nm === '(root)') continue;
      seen.add(nm);
      s.incl.set(nm, (s.incl.get(nm) ?? 0) + 1);
    }
  }
  for (const [k, s] of [...slices].sort((a, b) => a[0] - b[0])) {
    out.push(`  ${k * stepMs}-${(k + 1) * stepMs} ms: busy ${Math.round((100 * s.busy) / Math.max(1, s.n))}% of ${s.n} samples; ${[...s.incl].sort((a, b) => b[1] - a[1]).slice(0, 14).map(([f, c]) => `${f} ${c}`).join(', ')}`);
  }
  return out;
}

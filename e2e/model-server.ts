/**
 * A scripted model server on 127.0.0.1 for driving the real agent CLIs in tests: it
 * speaks the four wire formats the agents use (Anthropic Messages with SSE for Claude
 * Code, the OpenAI Responses API for Codex, OpenAI Chat Completions for OpenCode, and
 * Gemini's generateContent for Gemini CLI), answers each of the agent's main requests
 * (the ones that offer tools) with the next scripted turn, answers side requests (titles,
 * summaries, quota checks) with a short text, and records every request so a test can
 * assert on the next one the agent sent (a tool result after a deny, an answer).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Tokens a scripted answer says it used (Anthropic's usage fields); absent: 10 in, 5 out. */
export interface ScriptedUsage {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/** One scripted answer: text (a reply, perhaps with a ```td block), or a tool call. */
export type Turn =
  | { text: string; usage?: ScriptedUsage }
  | { tool: string; input: Record<string, unknown>; id?: string; text?: string; usage?: ScriptedUsage };

export type Api = 'anthropic' | 'responses' | 'chat' | 'gemini';

export interface ModelRequest {
  api: Api;
  path: string;
  body: Record<string, unknown>;
  /** A request of the agent's main loop (it offered tools), answered from the script. */
  main: boolean;
  /** The turn it was answered with (main requests). */
  turn?: Turn;
}

const FALLBACK: Turn = { text: 'Nothing more is scripted.' };

export class ModelServer {
  readonly requests: ModelRequest[] = [];
  private readonly turns: Turn[] = [];
  private readonly server: http.Server;
  private waiters: Array<() => void> = [];
  private seq = 0;
  url = '';

  constructor() {
    this.server = http.createServer((req, res) => { this.handle(req, res); });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Adds turns to the end of the script. */
  script(...turns: Turn[]): void {
    this.turns.push(...turns);
  }

  /** The main requests so far. */
  main(): ModelRequest[] {
    return this.requests.filter((r) => r.main);
  }

  /** Waits for the main request number `n` (0-based) and returns it. */
  async mainRequest(n: number, timeoutMs = 90_000, what = `main request ${n + 1}`): Promise<ModelRequest> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const got = this.main()[n];
      if (got) return got;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`the agent never sent ${what} (it sent ${this.main().length} main and ${this.requests.length - this.main().length} side requests)`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 1000));
        this.waiters.push(() => { clearTimeout(t); resolve(); });
      });
    }
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: Record<string, unknown> = {};
      try {
        const text = Buffer.concat(chunks).toString('utf8');
        body = text ? JSON.parse(text) as Record<string, unknown> : {};
      } catch {
        body = {};
      }
      const url = new URL(req.url ?? '/', 'http://x');
      const p = url.pathname;
      if (req.method === 'GET' && /\/models\/?$/.test(p)) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [{ id: 'scripted', object: 'model', created: 0, owned_by: 'td' }], models: [] }));
        return;
      }
      if (req.method !== 'POST') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":{"message":"not scripted"}}');
        return;
      }
      const api: Api | undefined = p.endsWith('/messages') ? 'anthropic'
        : p.endsWith('/responses') ? 'responses'
          : p.endsWith('/chat/completions') ? 'chat'
            : /:(stream)?generateContent$/i.test(p) ? 'gemini' : undefined;
      if (!api) {
        // count_tokens and anything else: a harmless answer
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ input_tokens: 10 }));
        return;
      }
      const main = hasTools(api, body);
      const turn = main ? this.turns.shift() ?? FALLBACK : { text: 'Scripted side answer.' };
      const record: ModelRequest = { api, path: p, body, main, ...(main ? { turn } : {}) };
      this.requests.push(record);
      const id = `${++this.seq}`;
      const stream = api === 'gemini' ? /stream/i.test(p) : body.stream === true;
      try {
        if (api === 'anthropic') anthropic(res, turn, id, stream);
        else if (api === 'responses') responses(res, turn, id);
        else if (api === 'chat') chat(res, turn, id, stream);
        else gemini(res, turn, stream);
      } finally {
        for (const w of this.waiters.splice(0)) w();
      }
    });
  }
}

function hasTools(api: Api, body: Record<string, unknown>): boolean {
  if (api === 'gemini') {
    const tools = body.tools;
    return Array.isArray(tools) && tools.some((t) => Array.isArray((t as { functionDeclarations?: unknown[] }).functionDeclarations) && (t as { functionDeclarations: unknown[] }).functionDeclarations.length > 0);
  }
  return Array.isArray(body.tools) && body.tools.length > 0;
}

function sse(res: http.ServerResponse, events: Array<[string | undefined, unknown]>): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  for (const [name, data] of events) res.write(`${name ? `event: ${name}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
  res.end();
}

const toolId = (turn: Extract<Turn, { tool: string }>, id: string, prefix: string) => turn.id ?? `${prefix}${id.padStart(6, '0')}`;

// ───────────── Anthropic Messages ─────────────

function anthropic(res: http.ServerResponse, turn: Turn, id: string, stream: boolean): void {
  const u = turn.usage;
  const usage = { input_tokens: u?.input ?? 10, output_tokens: u?.output ?? 5, cache_creation_input_tokens: u?.cacheWrite ?? 0, cache_read_input_tokens: u?.cacheRead ?? 0 };
  const content: Array<Record<string, unknown>> = [];
  if ('tool' in turn) {
    if (turn.text) content.push({ type: 'text', text: turn.text });
    content.push({ type: 'tool_use', id: toolId(turn, id, 'toolu_td'), name: turn.tool, input: turn.input });
  } else {
    content.push({ type: 'text', text: turn.text });
  }
  const stop = 'tool' in turn ? 'tool_use' : 'end_turn';
  const message = { id: `msg_td${id}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', stop_reason: null, stop_sequence: null, usage };
  if (!stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ...message, content, stop_reason: stop }));
    return;
  }
  // As the real API streams: message_start's usage has the input counts and a placeholder
  // output count (1), message_delta's the final counts (main/usage/transcripts.ts takes a
  // message's largest figures, should a transcript line carry the placeholder).
  const events: Array<[string, unknown]> = [['message_start', { type: 'message_start', message: { ...message, content: [], usage: { ...usage, output_tokens: 1 } } }]];
  content.forEach((block, index) => {
    if (block.type === 'text') {
      events.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }]);
      events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } }]);
    } else {
      events.push(['content_block_start', { type: 'content_block_start', index, content_block: { ...block, input: {} } }]);
      events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } }]);
    }
    events.push(['content_block_stop', { type: 'content_block_stop', index }]);
  });
  events.push(['message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage }]);
  events.push(['message_stop', { type: 'message_stop' }]);
  sse(res, events);
}

// ───────────── OpenAI Responses (Codex) ─────────────

/** The Responses API's usage: input_tokens counts the cached ones too. */
function responsesUsage(u: ScriptedUsage | undefined): Record<string, unknown> {
  const input = (u?.input ?? 10) + (u?.cacheRead ?? 0);
  const output = u?.output ?? 5;
  return { input_tokens: input, input_tokens_details: { cached_tokens: u?.cacheRead ?? 0 }, output_tokens: output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: input + output };
}

function responses(res: http.ServerResponse, turn: Turn, id: string): void {
  const respId = `resp_td${id}`;
  const output: Array<Record<string, unknown>> = [];
  if (!('tool' in turn) || turn.text) {
    output.push({ type: 'message', id: `msg_td${id}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'tool' in turn ? turn.text : turn.text, annotations: [] }] });
  }
  if ('tool' in turn) {
    output.push({ type: 'function_call', id: `fc_td${id}`, call_id: toolId(turn, id, 'call_td'), name: turn.tool, arguments: JSON.stringify(turn.input), status: 'completed' });
  }
  const base = { id: respId, object: 'response', created_at: Math.floor(Date.now() / 1000), model: 'scripted', status: 'in_progress', output: [] };
  const events: Array<[string, unknown]> = [['response.created', { type: 'response.created', response: base }]];
  output.forEach((item, output_index) => {
    events.push(['response.output_item.added', { type: 'response.output_item.added', output_index, item: item.type === 'message' ? { ...item, content: [] } : item }]);
    if (item.type === 'message') {
      const text = (item.content as Array<{ text: string }>)[0].text;
      events.push(['response.output_text.delta', { type: 'response.output_text.delta', item_id: item.id, output_index, content_index: 0, delta: text }]);
    }
    events.push(['response.output_item.done', { type: 'response.output_item.done', output_index, item }]);
  });
  events.push(['response.completed', {
    type: 'response.completed',
    response: { ...base, status: 'completed', output, usage: responsesUsage(turn.usage) },
  }]);
  sse(res, events);
}

// ───────────── OpenAI Chat Completions (OpenCode) ─────────────

/** Chat Completions' usage: prompt_tokens counts the cached ones too (prompt_tokens_details.cached_tokens). */
function chatUsage(u: ScriptedUsage | undefined): Record<string, unknown> {
  const cached = u?.cacheRead ?? 0;
  const prompt = (u?.input ?? 10) + cached;
  const completion = u?.output ?? 5;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, prompt_tokens_details: { cached_tokens: cached } };
}

function chat(res: http.ServerResponse, turn: Turn, id: string, stream: boolean): void {
  const base = { id: `chatcmpl-td${id}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: 'scripted' };
  const call = 'tool' in turn ? { id: toolId(turn, id, 'call_td'), type: 'function', function: { name: turn.tool, arguments: JSON.stringify(turn.input) } } : undefined;
  const text = 'tool' in turn ? turn.text : turn.text;
  const finish = call ? 'tool_calls' : 'stop';
  const usage = chatUsage(turn.usage);
  if (!stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: text ?? null, ...(call ? { tool_calls: [call] } : {}) }, finish_reason: finish }], usage }));
    return;
  }
  const events: Array<[undefined, unknown]> = [[undefined, { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }]];
  if (text) events.push([undefined, { ...base, choices: [{ index: 0, delta: { content: text }, finish_reason: null }] }]);
  if (call) events.push([undefined, { ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, ...call }] }, finish_reason: null }] }]);
  events.push([undefined, { ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }], usage }]);
  events.push([undefined, '[DONE]']);
  sse(res, events);
}

// ───────────── Gemini generateContent ─────────────

/** Gemini's usageMetadata: promptTokenCount counts the cached ones too. */
function geminiUsage(u: ScriptedUsage | undefined): Record<string, unknown> {
  const prompt = (u?.input ?? 10) + (u?.cacheRead ?? 0);
  const out = u?.output ?? 5;
  return { promptTokenCount: prompt, candidatesTokenCount: out, totalTokenCount: prompt + out, ...(u?.cacheRead ? { cachedContentTokenCount: u.cacheRead } : {}) };
}

function gemini(res: http.ServerResponse, turn: Turn, stream: boolean): void {
  const parts: Array<Record<string, unknown>> = [];
  if ('tool' in turn) {
    if (turn.text) parts.push({ text: turn.text });
    parts.push({ functionCall: { name: turn.tool, args: turn.input, ...(turn.id ? { id: turn.id } : {}) } });
  } else {
    parts.push({ text: turn.text });
  }
  const chunk = {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: geminiUsage(turn.usage),
    modelVersion: 'scripted',
  };
  if (!stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(chunk));
    return;
  }
  sse(res, [[undefined, chunk]]);
}

import { describe, expect, it, vi } from 'vitest';
import { parseEvent, TDAC_VERSION } from '../agent-channel/events.ts';
import { agentEntryOfLine } from './service.ts';
import { agentEntry, transcriptOf } from './transcript.ts';

const ev = (id: string, type: string, extra: Record<string, unknown>): string => JSON.stringify({ tdac: TDAC_VERSION, id, at: `2026-12-04T10:00:0${id.slice(-1)}Z`, agent: 'codex', type, ...extra });

describe('transcriptOf', () => {
  const lines = [
    ev('e1', 'session', { session_id: 'old', transcript_path: '/t/old.jsonl' }),
    ev('e2', 'prompt', { session_id: 'old', text: 'an earlier session' }),
    ev('e3', 'session', { session_id: 'new', transcript_path: '/t/new.jsonl' }),
    ev('e4', 'prompt', { session_id: 'new', text: 'move the cache' }),
    ev('e5', 'tool', { session_id: 'new', tool_name: 'Bash', tool_input: { command: 'ls' }, failed: true, tool_output: 'ls: cannot access zqxdir: No such file' }),
    'not json',
    ev('e6', 'reply', { session_id: 'new', text: 'Moved **it**.' }),
  ];
  it('is the hit\'s agent session, its prompts, replies and tool runs in order, and which entry the hit is', () => {
    const t = transcriptOf(lines, 'e6');
    expect(t).toMatchObject({ agent: 'codex', sessionId: 'new', path: '/t/new.jsonl', index: 2, cut: { before: 0, after: 0 } });
    expect(typeof t !== 'string' && t.entries.map((e) => [e.kind, e.ref, e.text])).toEqual([
      ['prompt', 'e4', 'move the cache'], ['tool', 'e5', 'Bash (failed) {"command":"ls"}\nls: cannot access zqxdir: No such file'], ['reply', 'e6', 'Moved **it**.'],
    ]);
  });
  it('holds the text as the index does: a reply with a private key in it, the key redacted whole', () => {
    const key = `-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\nQyNTUxOQAAACDx4mVhM2QwZTk1ZjQ3YjFlMGY5ZDhh\n-----END OPENSSH PRIVATE KEY-----`;
    const t = transcriptOf([ev('e1', 'reply', { session_id: 's', text: `Here it is:\n${key}\nkeep it safe` })], 'e1');
    expect(typeof t !== 'string' && t.entries[0]!.text).toBe('Here it is:\n[redacted]\n[redacted]\n[redacted]\n[redacted]\nkeep it safe');
  });
  it('says so when the event is no longer in the record', () => {
    expect(transcriptOf(lines, 'e9')).toBe('the agent event e9 is no longer in the pane\'s record');
  });
  it('keeps 400 entries of a long session around the hit, and counts the rest', () => {
    const long = Array.from({ length: 1000 }, (_, i) => JSON.stringify({ tdac: TDAC_VERSION, id: `p${i}`, at: '2026-12-04T10:00:00Z', type: 'prompt', session_id: 's', text: `n${i}` }));
    const t = transcriptOf(long, 'p700');
    if (typeof t === 'string') throw new Error(t);
    expect([t.entries.length, t.cut, t.entries[t.index]!.text]).toEqual([400, { before: 500, after: 100 }, 'n700']);
  });
});

describe('agentEntryOfLine (the index reads events without making the rest of them: parseAgentEvent)', () => {
  it('gives what agentEntry gives of parseEvent, for every kind of line', () => {
    // The time fixed: a line with no or a broken `at` is given now, once by each reader.
    vi.useFakeTimers({ now: Date.parse('2026-12-07T00:30:00.000Z') });
    try {
      const at = '2026-12-04T10:00:00.123Z';
      const objects: unknown[] = [
        // each type, with and without the fields the entry reads
        { tdac: '0.2', id: 'p1', at, agent: 'codex', type: 'prompt', text: 'move the cache' },
        { tdac: '0.2', id: 'p2', at, type: 'prompt' },
        { tdac: '0.2', id: 'p3', at, type: 'prompt', text: 42 },
        { tdac: '0.2', id: 'r1', at, agent: 'gemini', type: 'reply', text: 'Moved **it**.\n\n```ts\nx\n```', session_id: 's' },
        { tdac: '0.2', id: 't1', at, type: 'tool', tool_name: 'Bash', tool_input: { command: 'ls "a b"', description: 'é → 😀' }, failed: true },
        { tdac: '0.2', id: 't2', at, type: 'tool', tool_name: 'Read', tool_input: null, failed: 'true', answers: { a: 'b', c: 1 }, tool_use_id: 'u1' },
        { tdac: '0.2', id: 't3', at, type: 'tool', tool_name: 'Edit' },
        { tdac: '0.2', id: 't3o', at, type: 'tool', tool_name: 'Bash', tool_input: { command: 'make' }, tool_output: 'make: *** [build] Error 2' },
        { tdac: '0.2', id: 't3p', at, type: 'tool', tool_name: 'Bash', tool_output: 42 },
        { tdac: '0.2', id: 't3a', at, agent: 'codex', type: 'tool', tool_name: 'Edit' },
        { tdac: '0.2', id: 't3b', at, agent: 'codex', type: 'tool', tool_name: 'Edit', tool_input: null, failed: true },
        { tdac: '0.2', id: 't4', at, type: 'tool', tool_name: 'Big', tool_input: { s: 'x'.repeat(5000) } },
        { tdac: '0.2', id: 't5', at, type: 'tool', tool_name: 'Arr', tool_input: [1, 'two', { three: 3 }] },
        { tdac: '0.2', id: 't6', at, type: 'tool', tool_name: 'Str', tool_input: 'plain' },
        { tdac: '0.2', id: 't7', at, type: 'tool', tool_name: '', tool_input: {} },
        { tdac: '0.2', id: 't8', at, type: 'tool', tool_name: 7 },
        // the agent's label: kept only when it is one
        { tdac: '0.2', id: 'a1', at, agent: 'Not An Agent', type: 'prompt', text: 'x' },
        { tdac: '0.2', id: 'a2', at, agent: 'a'.repeat(33), type: 'reply', text: 'x' },
        { tdac: '0.2', id: 'a3', at, agent: 5, type: 'tool', tool_name: 'Bash', tool_input: {} },
        // times: missing, broken, the epoch (0 ms: now, as agentEntry has it)
        { tdac: '0.2', id: 'd1', type: 'prompt', text: 'no time' },
        { tdac: '0.2', id: 'd2', at: 'yesterday', type: 'reply', text: 'broken time' },
        { tdac: '0.2', id: 'd3', at: '1970-01-01T00:00:00.000Z', type: 'prompt', text: 'the epoch' },
        { tdac: '0.2', id: 'd4', at: 12345, type: 'tool', tool_name: 'Bash', tool_input: {} },
        // versions: this major with any minor, no other
        { tdac: '0', id: 'v1', at, type: 'prompt', text: 'x' },
        { tdac: '0.9.1', id: 'v2', at, type: 'prompt', text: 'x' },
        { tdac: '0.', id: 'v3', at, type: 'prompt', text: 'x' },
        { tdac: '00.2', id: 'v4', at, type: 'prompt', text: 'x' },
        { tdac: '1.0', id: 'v5', at, type: 'prompt', text: 'x' },
        { tdac: '.2', id: 'v6', at, type: 'prompt', text: 'x' },
        { tdac: 0.2, id: 'v7', at, type: 'prompt', text: 'x' },
        { id: 'v8', at, type: 'prompt', text: 'x' },
        // ids
        { tdac: '0.2', at, type: 'prompt', text: 'x' },
        { tdac: '0.2', id: '', at, type: 'prompt', text: 'x' },
        { tdac: '0.2', id: 'has space', at, type: 'prompt', text: 'x' },
        { tdac: '0.2', id: 'x'.repeat(129), at, type: 'prompt', text: 'x' },
        { tdac: '0.2', id: 7, at, type: 'prompt', text: 'x' },
        // the other types, and none
        { tdac: '0.2', id: 'o1', at, type: 'session', session_id: 's', transcript_path: '/t' },
        { tdac: '0.2', id: 'o2', at, type: 'question', question: 'Which?', options: ['a', 'b'] },
        { tdac: '0.2', id: 'o3', at, type: 'permission', tool_name: 'Bash', tool_input: {} },
        { tdac: '0.2', id: 'o4', at, type: 'answer', of: 'o2', answers: { q: 'a' } },
        { tdac: '0.2', id: 'o5', at, type: 'unanswered', of: 'o2' },
        { tdac: '0.2', id: 'o6', at, type: 'mystery', text: 'x' },
        { tdac: '0.2', id: 'o7', at, text: 'x' },
        null, 7, 'a string', [{ tdac: '0.2', id: 'x', at, type: 'prompt', text: 'x' }],
      ];
      const lines = [
        ...objects.map((o) => JSON.stringify(o)),
        // what JSON.stringify does not write: duplicate keys (the last wins), a __proto__ key, escapes, spaces
        '{"tdac":"0.2","id":"k1","at":"2026-12-04T10:00:00Z","type":"reply","text":"first","text":"second"}',
        '{"tdac":"0.2","id":"k2","at":"2026-12-04T10:00:00Z","type":"tool","tool_name":"Bash","__proto__":{"failed":true},"tool_input":{"__proto__":{"x":1}}}',
        ' { "tdac" : "0.2" , "id" : "k3" , "type" : "prompt" , "text" : "\\u00e9\\ud83d\\ude00 \\"q\\" \\\\ \\n\\t" } ',
        '{"tdac":"0.2","id":"k4","type":"prompt","text":"lone \\ud800 surrogate"}',
        '{"tdac":"0.2","id":"k5","type":"tool","tool_name":"Bash","tool_input":{"n":1.0,"e":1e3,"big":12345678901234567890}}',
        // not JSON, or cut short
        '', 'not json', '{"tdac":"0.2","id":"c1","type":"prompt","text":"cut', '{"tdac":"0.2"}}',
      ];
      let entries = 0;
      for (const l of lines) {
        const e = parseEvent(l);
        const want = e ? agentEntry(e) : undefined;
        if (want) entries++;
        expect(agentEntryOfLine(l), l).toStrictEqual(want);
        expect(JSON.stringify(agentEntryOfLine(l)), l).toBe(JSON.stringify(want));
      }
      // (The lines the index keeps are there, not only ones both refuse.)
      expect(entries).toBeGreaterThanOrEqual(20);
      // This major version with any minor, and no other (`tdac` read by both as it always was: up to its first dot).
      const version = (tdac: unknown) => agentEntryOfLine(JSON.stringify({ tdac, id: 'v', at, type: 'prompt', text: 'x' }))?.ref;
      expect(['0', '0.2', '0.9.1', '0.'].map(version)).toEqual(['v', 'v', 'v', 'v']);
      expect(['00.2', '1.0', '.2', '0a.2', '', 0.2, null].map(version)).toEqual([undefined, undefined, undefined, undefined, undefined, undefined, undefined]);
    } finally {
      vi.useRealTimers();
    }
  });
});

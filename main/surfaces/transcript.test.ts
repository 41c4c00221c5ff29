import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempState } from '../panes/testing.ts';
import { agentTexts, deriveSurfaces, fencedBlocks, readTail, transcriptBlocks, TranscriptWatcher } from './transcript.ts';

const SAMPLES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'assets', 'transcripts');
const claude = fs.readFileSync(path.join(SAMPLES, 'claude-code.jsonl'), 'utf8');
const codex = fs.readFileSync(path.join(SAMPLES, 'codex-rollout.jsonl'), 'utf8');

describe('pure extraction', () => {
  it('reads only the assistant\'s own text from Claude Code transcripts', () => {
    const texts = agentTexts(claude);
    expect(texts.map((t) => t.key)).toEqual(['a-2', 'a-3']);
    expect(texts.map((t) => t.text).join('\n')).not.toContain('never read');
  });
  it('reads only assistant output_text from Codex rollouts', () => {
    const texts = agentTexts(codex);
    expect(texts).toHaveLength(2);
    expect(texts[0]!.key).toBe('msg_codex_1');
    expect(texts.map((t) => t.text).join('\n')).not.toContain('never read');
  });
  it('reads older Codex rollouts, whose lines are the payloads themselves', () => {
    const line = JSON.stringify({ type: 'message', role: 'assistant', id: 'old1', content: [{ type: 'output_text', text: '```td\n{"td":"0.4"}\n```' }] });
    const user = JSON.stringify({ type: 'message', role: 'user', content: [{ type: 'input_text', text: '```td\n{}\n```' }] });
    expect(agentTexts(`${line}\n${user}\n`)).toEqual([{ key: 'old1', text: '```td\n{"td":"0.4"}\n```' }]);
  });
  it('finds ```td and ```tdsp blocks only', () => {
    expect(fencedBlocks('a\n```td\n{"x":1}\n```\n```json\n{}\n```\n  ```tdsp\n{"y":2}\n  ```\n```td\nunclosed')).toEqual(['{"x":1}', '{"y":2}']);
    expect(fencedBlocks('```td\r\n{"z":3}\r\n```')).toEqual(['{"z":3}']);
  });
  it('keys blocks stably and derives what the window reads', () => {
    const a = transcriptBlocks(claude);
    expect(a).toHaveLength(3);
    expect(transcriptBlocks(claude)).toEqual(a);
    expect(new Set(a.map((b) => b.key)).size).toBe(3);
    expect(deriveSurfaces(claude).map((c) => c.type)).toEqual(['present', 'present', 'unclassified']);
    expect(deriveSurfaces('```td\nnot json\n```').length).toBe(0); // not in a transcript line
    const line = JSON.stringify({ type: 'assistant', uuid: 'u', message: { content: [{ type: 'text', text: '```td\nnot json\n```' }] } });
    expect(deriveSurfaces(line)).toMatchObject([{ type: 'unclassified', reason: /not valid JSON/ }]);
  });
  it('survives lines that are not JSON and hostile shapes', () => {
    const junk = ['nope', '{"type":"assistant","message":{"content":"text"}}', '{"type":"assistant","message":{"content":[null,1,{"type":"text","text":5}]}}', 'null', '[]'].join('\n');
    expect(agentTexts(junk)).toEqual([]);
  });
});

describe('reading a growing transcript', () => {
  let state: ReturnType<typeof tempState>;
  beforeEach(() => { state = tempState(); });
  afterEach(() => state.cleanup());

  it('reads only the last 256 KiB, from a whole line', () => {
    const file = path.join(state.dir, 't.jsonl');
    const filler = `${JSON.stringify({ type: 'user', message: { content: 'x'.repeat(1000) } })}\n`;
    fs.writeFileSync(file, filler.repeat(400) + claude);
    const tail = readTail(file);
    expect(Buffer.byteLength(tail)).toBeLessThanOrEqual(256 * 1024);
    expect(tail.startsWith('{')).toBe(true);
    expect(transcriptBlocks(tail)).toHaveLength(3);
  });

  it('ingests each block once as the file grows and is re-read', () => {
    const file = path.join(state.dir, 't.jsonl');
    const lines = claude.split('\n').filter(Boolean);
    fs.writeFileSync(file, `${lines.slice(0, 5).join('\n')}\n`);
    const read = new Set<string>();
    const ingested: string[] = [];
    const w = new TranscriptWatcher({
      firstReading: (_p, key) => (read.has(key) ? false : (read.add(key), true)),
      ingest: (_p, text) => ingested.push(JSON.parse(text).id),
    }, 60_000);
    w.watch('p1', file);
    expect(ingested).toEqual(['cc-reply', 'cache-eviction']);
    fs.appendFileSync(file, `${lines.slice(5).join('\n')}\n`);
    w.check('p1');
    w.check('p1');
    fs.appendFileSync(file, `${JSON.stringify({ type: 'user', message: { content: 'more' } })}\n`);
    w.check('p1');
    expect(ingested).toEqual(['cc-reply', 'cache-eviction', 'holo']);
    w.close();
  });
});

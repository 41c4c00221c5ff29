/**
 * The one registry of TDSP 0.4 kinds: for each kind, the JSON Schema of its model, and
 * (from preload/tdsp.ts, which the renderer shares) its shelf, the actions it offers,
 * its default title, whether agents may send it, and a one-line summary. Everything
 * that validates (validate.ts) or lists kinds (the catalogue: CLI and MCP) asks here.
 *
 * Plain data and pure functions only: no Node imports, so Vite can bundle it.
 */
import type { CatalogueKind, Shelf, SurfaceKind } from '../../preload/contract.ts';
import { KIND_RULES, type KindRules } from '../../preload/tdsp.ts';

export { ID_PATTERN, LIMITS, TDSP_MAJOR, TDSP_VERSION } from '../../preload/tdsp.ts';

/** A JSON Schema (draft 2020-12 subset that ajv compiles). */
export type JsonSchema = Record<string, unknown>;

export interface KindSpec extends KindRules {
  /** JSON Schema of the kind's `model`. Every property carries a `description`, used in refusals. */
  schema: JsonSchema;
}

const str = (description: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'string', description, ...extra });
const bool = (description: string): JsonSchema => ({ type: 'boolean', description });

function model(properties: Record<string, JsonSchema>, required: string[]): JsonSchema {
  return { type: 'object', properties, required, additionalProperties: true };
}

/** Each kind's model schema. */
const SCHEMAS: Record<SurfaceKind, JsonSchema> = {
  response: model({
    layman: str('the plain-English explanation of the whole reply', { minLength: 1 }),
    body: str('the reply itself, in Markdown'),
    register: { enum: ['answer', 'progress', 'done', 'blocked', 'warning'], description: 'one of answer, progress, done, blocked or warning' },
  }, ['layman']),
  decision: model({
    question: str('the decision to take, as a question', { minLength: 1 }),
    options: {
      type: 'array', minItems: 1, description: 'at least one option of {name, recommended?, case?, cost?}',
      items: model({
        name: str('the option\'s name', { minLength: 1 }),
        recommended: bool('whether this is the option you recommend'),
        case: str('the case for it'),
        cost: str('what it costs'),
      }, ['name']),
    },
    context: str('background, in Markdown'),
  }, ['question', 'options']),
  question: model({
    question: str('the question to ask', { minLength: 1 }),
    options: {
      type: 'array', description: 'the options of {name, detail?}',
      items: model({ name: str('the option\'s name', { minLength: 1 }), detail: str('what the option means') }, ['name']),
    },
    multiple: bool('whether several options may be chosen'),
    free_text: bool('whether a written answer is welcome'),
  }, ['question']),
  change: model({
    summary: str('what the change does'),
    files: {
      type: 'array', description: 'the changed files, as {path, diff} with a unified diff',
      items: model({ path: str('the file\'s path', { minLength: 1 }), diff: str('the unified diff of that file') }, ['path', 'diff']),
    },
  }, ['files']),
  artifact: model({
    location: str('an absolute path, or an http://, https:// or file:// address', { minLength: 1 }),
    media_type: str('the file\'s media type, such as text/markdown'),
    summary: str('what the file is'),
  }, ['location']),
  table: model({
    columns: { type: 'array', items: { type: 'string' }, description: 'the column headings, as strings' },
    rows: {
      type: 'array', description: 'the rows, each an array of cells',
      items: { type: 'array', items: { type: ['string', 'number', 'boolean', 'null'] } },
    },
    caption: str('what the table shows'),
  }, ['columns', 'rows']),
  diagram: model({
    format: { enum: ['mermaid', 'svg'], description: 'mermaid or svg' },
    source: str('the diagram\'s source text', { minLength: 1 }),
    caption: str('what the diagram shows'),
  }, ['format', 'source']),
  comment: model({
    text: str('the note', { minLength: 1 }),
    on: str('the id of the surface the note is about'),
  }, ['text']),
  unclassified: model({
    reason: str('why it could not be classified'),
    raw: str('the raw payload'),
  }, ['reason']),
};

/** The kinds in the order the catalogue lists them. */
export const KINDS: readonly KindSpec[] = KIND_RULES.map((k) => ({ ...k, schema: SCHEMAS[k.kind] }));

const BY_KIND = new Map<string, KindSpec>(KINDS.map((k) => [k.kind, k]));

export function kindSpec(kind: string): KindSpec | undefined {
  return BY_KIND.get(kind);
}

/** The kinds agents may send, in catalogue order. */
export function agentKinds(): SurfaceKind[] {
  return KINDS.filter((k) => k.offeredToAgents).map((k) => k.kind);
}

export function shelfOf(kind: SurfaceKind): Shelf {
  return BY_KIND.get(kind)?.shelf ?? 'Unsorted';
}

/** The catalogue: what `surface --catalogue`, `surface_catalogue` and `surface.catalogue` list. */
export function catalogue(): CatalogueKind[] {
  return KINDS.map(({ kind, shelf, actions, defaultTitle, offeredToAgents, summary }) => ({
    kind, shelf, actions: [...actions], defaultTitle, offeredToAgents, summary,
  }));
}

/** The catalogue as a plain-text table (for `surface --catalogue`). */
export function catalogueTable(): string {
  const rows = [['kind', 'shelf', 'actions', 'agents', 'summary'], ...KINDS.map((k) => [
    k.kind, k.shelf, k.actions.join(', '), k.offeredToAgents ? 'yes' : 'no', k.summary,
  ])];
  const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => (i < 4 ? cell.padEnd(widths[i]!) : cell)).join('  ')).join('\n') + '\n';
}

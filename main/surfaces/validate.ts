/**
 * The one parse-and-validate function every route calls (TDSP 0.4).
 *
 * Strict (MCP, CLI) refuses with one sentence saying what is wrong and what to do.
 * Lenient (file, transcript, agent) never refuses: valid JSON that is not a valid
 * surface becomes an `unclassified` surface with the reason and the raw payload;
 * text that is not JSON at all is reported as `not-json` (the file route leaves such
 * a file until it becomes JSON).
 *
 * Hostile input never crashes or hangs: the size is checked before parsing, and the
 * depth (and node count) is measured iteratively before anything recursive runs.
 */
import { createHash } from 'node:crypto';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { SurfaceKind } from '../../preload/contract.ts';
import { ID_PATTERN, KINDS, LIMITS, TDSP_MAJOR, TDSP_VERSION, agentKinds, kindSpec, type JsonSchema } from './registry.ts';

export type Op = 'present' | 'update' | 'retire';

/** A checked surface, ready for a store. */
export interface SurfaceDoc {
  id: string;
  kind: SurfaceKind;
  title: string;
  model: Record<string, unknown>;
}

export type Checked =
  | { type: 'present' | 'update'; doc: SurfaceDoc }
  | { type: 'retire'; id: string }
  /** Strict mode only. */
  | { type: 'refused'; reason: string }
  /** Lenient mode only: `doc` is the unclassified card (its model holds reason and raw). */
  | { type: 'unclassified'; reason: string; doc: SurfaceDoc }
  /** Lenient mode only: text that is not JSON (yet). */
  | { type: 'not-json'; reason: string };

export interface CheckOptions {
  strict: boolean;
  /** A person's own note may be a `comment` (the 'person' route). */
  person?: boolean;
  /**
   * The surface already on the bench under an id, for `update` to merge into. When
   * absent (the CLI, which has no bench), an update's model is checked on its own
   * fields without the required ones.
   */
  existing?: (id: string) => { kind: SurfaceKind; model: Record<string, unknown> } | undefined;
  /** The id an unclassified card takes when the payload names no valid one. */
  fallbackId?: string;
}

const ajv = new Ajv({ allErrors: false, verbose: true, strict: false });
const validators = new Map<string, { full: ValidateFunction; partial: ValidateFunction }>();

/** A kind's validators, compiled the first time a surface of that kind is checked (not at the service's start). */
function kindValidators(kind: string): { full: ValidateFunction; partial: ValidateFunction } | undefined {
  let v = validators.get(kind);
  const spec = v ? undefined : KINDS.find((k) => k.kind === kind);
  if (spec) {
    const partial = { ...spec.schema, required: [] } as JsonSchema;
    v = { full: ajv.compile(spec.schema), partial: ajv.compile(partial) };
    validators.set(kind, v);
  }
  return v;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The made-up id of a surface sent without one. */
export function madeUpId(kind: string, title: string | undefined): string {
  return `${kind}-${sha256Hex(`${kind}\n${title ?? ''}`).slice(0, 8)}`;
}

/** UTF-8 bytes of a string, without copying it. */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** How deep a parsed value nests, counting nodes too; stops early past the limits. Iterative. */
export function measure(value: unknown, maxDepth = LIMITS.depth, maxNodes = 500_000): { depth: number; nodes: number; tooDeep: boolean; tooMany: boolean } {
  let depth = 0;
  let nodes = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    nodes++;
    if (d > depth) depth = d;
    if (depth > maxDepth) return { depth, nodes, tooDeep: true, tooMany: false };
    if (nodes > maxNodes) return { depth, nodes, tooDeep: false, tooMany: true };
    if (v !== null && typeof v === 'object') {
      const children = Array.isArray(v) ? v : Object.values(v as Record<string, unknown>);
      for (const c of children) if (c !== null && typeof c === 'object') stack.push([c, d + 1]);
      else nodes++;
    }
  }
  return { depth, nodes, tooDeep: false, tooMany: false };
}

/** "a response", "an artifact". */
export const an = (kind: string): string => `${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind}`;
const kib = (bytes: number): string => `${Math.ceil(bytes / 1024)} KiB`;
const quote = (v: unknown): string => {
  const s = typeof v === 'string' ? v : JSON.stringify(v) ?? String(v);
  const cut = s.length > 60 ? `${s.slice(0, 60)}…` : s;
  return JSON.stringify(cut);
};

export const REFUSALS = {
  notJson: (why: string) => `the surface is not valid JSON (${why}) — send one JSON object such as {"td":"0.4","kind":"response","model":{"layman":"…"}}`,
  notObject: () => 'a surface is a JSON object — send {"td":"0.4","kind":…,"model":{…}}',
  tooBig: (bytes: number) => `the surface is ${kib(bytes)} — a surface document is at most 256 KiB; put large content in a file and send an artifact`,
  tooDeep: () => `the surface nests deeper than ${LIMITS.depth} levels — flatten the model`,
  tooMany: () => 'the surface has too many values — a surface document is at most 256 KiB',
  missingTd: () => `missing \`td\` version field — this build speaks TDSP ${TDSP_VERSION}`,
  numericTd: (v: unknown) => `\`td\` is the number ${String(v)} — send it as a string: "td": "${TDSP_VERSION}"`,
  badTd: (v: unknown) => `\`td\` ${quote(v)} is not a TDSP version — this build speaks TDSP ${TDSP_VERSION}; send "td": "${TDSP_VERSION}"`,
  wrongMajor: (v: string) => `TDSP ${quote(v)} is not supported — this build speaks TDSP ${TDSP_VERSION} (major version ${TDSP_MAJOR} only)`,
  badOp: (v: unknown) => `unknown op ${quote(v)} — use present, update or retire (present when absent)`,
  retireNoId: () => '`retire` needs the `id` of the surface to take off the bench',
  badId: (v: unknown) => `id ${quote(v)} is not allowed — use 1 to 128 characters of A-Z, a-z, 0-9, ".", "_", ":" and "-"`,
  missingKind: () => `missing \`kind\` — this build renders ${agentKinds().join(', ')}`,
  unknownKind: (v: unknown) => `unknown kind ${quote(v)} — this build renders ${agentKinds().join(', ')}`,
  personKind: (k: string) => `kind "${k}" is not offered to agents — this build renders ${agentKinds().join(', ')}`,
  badTitle: () => `\`title\` must be a string of at most ${LIMITS.titleChars} characters — shorten it or leave it out for the kind's default`,
  longTitle: (n: number) => `the title is ${n} characters — keep it to ${LIMITS.titleChars} or fewer`,
  missingModel: (k: string) => `${an(k)} needs a \`model\` object — see surface_catalogue for the fields each kind takes`,
  relative: (loc: string) => `${quote(loc)} is relative — it would resolve against the TERMINAL's directory, not yours. Send an absolute path or a full URL.`,
  badScheme: (loc: string, scheme: string) => `${quote(loc)} uses the ${scheme} scheme — send an absolute path or an http://, https:// or file:// address`,
} as const;

/** The first ajv error as one sentence. */
function schemaRefusal(kind: string, error: ErrorObject): string {
  const where = error.instancePath
    ? `\`model${error.instancePath.replace(/\/(\d+)/g, '[$1]').replace(/\//g, '.')}\``
    : '';
  if (error.keyword === 'required') {
    const prop = (error.params as { missingProperty: string }).missingProperty;
    const props = ((error.parentSchema as JsonSchema | undefined)?.properties ?? {}) as Record<string, JsonSchema>;
    const description = props[prop]?.description;
    const who = where ? `${an(kind)}'s ${where}` : an(kind);
    return `${who} needs a \`${prop}\`${description ? ` — ${String(description)}` : ''}`;
  }
  const description = (error.parentSchema as JsonSchema | undefined)?.description;
  const field = where || '`model`';
  return `${an(kind)}'s ${field} ${error.message ?? 'is not right'}${description ? ` — ${String(description)}` : ' — see surface_catalogue for the fields each kind takes'}`;
}

/** Absolute path or http(s)/file URL; the refusal otherwise. */
export function locationRefusal(location: string): string | undefined {
  if (location.startsWith('/')) return undefined;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(location)?.[1]?.toLowerCase();
  if (!scheme || /^[A-Za-z]$/.test(scheme)) return REFUSALS.relative(location);
  if (scheme === 'http' || scheme === 'https' || scheme === 'file') return undefined;
  return REFUSALS.badScheme(location, `${scheme}:`);
}

/** Check a model against its kind; the refusal sentence, or undefined when it is fine. */
export function checkModel(kind: SurfaceKind, model: Record<string, unknown>, partial = false): string | undefined {
  const v = kindValidators(kind);
  if (!v) return REFUSALS.unknownKind(kind);
  const fn = partial ? v.partial : v.full;
  if (!fn(model)) return schemaRefusal(kind, fn.errors![0]!);
  if (kind === 'artifact' && typeof model.location === 'string') return locationRefusal(model.location);
  return undefined;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function rawOf(input: string | unknown, value: unknown): string {
  if (typeof input === 'string') return input;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return '(not shown)';
  }
}

/** An unclassified card for text that is not JSON (routes that cannot wait for it to become JSON). */
export function notJsonCard(reason: string, raw: string): Checked {
  return {
    type: 'unclassified', reason,
    doc: { id: `unclassified-${sha256Hex(raw).slice(0, 8)}`, kind: 'unclassified', title: kindSpec('unclassified')!.defaultTitle, model: { reason, raw } },
  };
}

/**
 * Parse (when given text) and check one surface document.
 * `input` is the document's text (file, CLI, transcript block) or an already parsed
 * value (MCP, agent channel).
 */
export function checkSurface(input: string | unknown, opts: CheckOptions): Checked {
  const refuse = (reason: string, value?: unknown, rawText?: string): Checked => {
    if (opts.strict) return { type: 'refused', reason };
    const raw = rawText ?? (value === undefined ? '' : rawOf(input, value));
    const rec = isPlainObject(value) ? value : undefined;
    const id = opts.fallbackId
      ?? (typeof rec?.id === 'string' && ID_PATTERN.test(rec.id) ? rec.id : `unclassified-${sha256Hex(raw).slice(0, 8)}`);
    const title = typeof rec?.title === 'string' && rec.title.length > 0 && rec.title.length <= LIMITS.titleChars
      ? rec.title : kindSpec('unclassified')!.defaultTitle;
    return { type: 'unclassified', reason, doc: { id, kind: 'unclassified', title, model: { reason, raw } } };
  };

  let value: unknown;
  if (typeof input === 'string') {
    const bytes = utf8Bytes(input);
    if (bytes > LIMITS.documentBytes) return refuse(REFUSALS.tooBig(bytes), undefined, '');
    try {
      value = JSON.parse(input);
    } catch (e) {
      const why = e instanceof Error ? e.message.split('\n')[0]!.slice(0, 120) : 'unreadable';
      if (opts.strict) return { type: 'refused', reason: REFUSALS.notJson(why) };
      return { type: 'not-json', reason: REFUSALS.notJson(why) };
    }
  } else {
    value = input;
  }

  const m = measure(value);
  if (m.tooDeep) return refuse(REFUSALS.tooDeep(), undefined, typeof input === 'string' ? input : '(not shown: nested too deep)');
  if (m.tooMany) return refuse(REFUSALS.tooMany(), undefined, typeof input === 'string' ? input : '(not shown: too large)');
  if (typeof input !== 'string') {
    const bytes = utf8Bytes(JSON.stringify(value) ?? '');
    if (bytes > LIMITS.documentBytes) return refuse(REFUSALS.tooBig(bytes), undefined, '');
  }

  if (!isPlainObject(value)) return refuse(REFUSALS.notObject(), value);
  const doc = value;

  // version
  if (!('td' in doc) || doc.td === undefined || doc.td === null) return refuse(REFUSALS.missingTd(), doc);
  if (typeof doc.td === 'number') return refuse(REFUSALS.numericTd(doc.td), doc);
  if (typeof doc.td !== 'string' || !/^\d+(\.\d+)*$/.test(doc.td)) return refuse(REFUSALS.badTd(doc.td), doc);
  if (Number(doc.td.split('.')[0]) !== TDSP_MAJOR) return refuse(REFUSALS.wrongMajor(doc.td), doc);

  // op
  const op = doc.op === undefined ? 'present' : doc.op;
  if (op !== 'present' && op !== 'update' && op !== 'retire') return refuse(REFUSALS.badOp(op), doc);

  // id (checked before kind so a retire needs nothing else)
  if (doc.id !== undefined && (typeof doc.id !== 'string' || !ID_PATTERN.test(doc.id))) return refuse(REFUSALS.badId(doc.id), doc);
  if (op === 'retire') {
    if (typeof doc.id !== 'string') return refuse(REFUSALS.retireNoId(), doc);
    return { type: 'retire', id: doc.id };
  }

  // kind
  if (doc.kind === undefined) return refuse(REFUSALS.missingKind(), doc);
  const spec = typeof doc.kind === 'string' ? kindSpec(doc.kind) : undefined;
  if (!spec) return refuse(REFUSALS.unknownKind(doc.kind), doc);
  if (!spec.offeredToAgents && !(opts.person && spec.kind === 'comment')) return refuse(REFUSALS.personKind(spec.kind), doc);
  const kind = spec.kind;

  // title
  if (doc.title !== undefined && typeof doc.title !== 'string') return refuse(REFUSALS.badTitle(), doc);
  if (typeof doc.title === 'string' && doc.title.length > LIMITS.titleChars) return refuse(REFUSALS.longTitle(doc.title.length), doc);
  const givenTitle = typeof doc.title === 'string' && doc.title.length > 0 ? doc.title : undefined;
  const title = givenTitle ?? spec.defaultTitle;
  const id = typeof doc.id === 'string' ? doc.id : madeUpId(kind, givenTitle);

  // model
  if (!isPlainObject(doc.model)) return refuse(REFUSALS.missingModel(kind), doc);
  let model = doc.model;
  let partial = false;
  if (op === 'update') {
    if (opts.existing) {
      const before = opts.existing(id);
      if (before && before.kind === kind) model = { ...before.model, ...model };
    } else {
      partial = true;
    }
  }
  const wrong = checkModel(kind, model, partial);
  if (wrong) return refuse(wrong, doc);

  return { type: op, doc: { id, kind, title, model } };
}

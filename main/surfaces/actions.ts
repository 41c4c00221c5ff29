/**
 * Actions back to the agent. An action first appends one line to the pane folder's
 * `actions.jsonl` (the comment as written, fsync'd), THEN types
 * `[workbench:<tag>] <action> on surface <id>[ · <target>][ — <comment>]` and a return
 * into the pane's PTY, with every line break and control character turned into a
 * space. The line names a target only for the actions that take one (`choose`, the
 * `_part` actions): TDSP 0.4's own example types `approve on surface cache-eviction`,
 * while actions.jsonl records the recommended option an approve stands for. Never the other way round. `dismiss` tells no one; view-only actions (`open`)
 * are routed to a viewer and never typed.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ActionRecord, PaneInfo, Surface } from '../../preload/contract.ts';
import { LIMITS, TDSP_VERSION, kindSpec } from './registry.ts';
import { currentRecords } from '../../common/revisions.ts';
import { ACTIONS_FILE, type SurfaceStore } from './store.ts';
import { utf8Bytes } from './validate.ts';

/** C0, DEL, C1 (ESC above all), and Unicode line/paragraph separators become spaces. */
export function sanitize(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' ');
}

/** The line typed into the pane, without its return. */
export function actionLine(tag: string, action: string, id: string, target?: string, comment?: string): string {
  let line = `[workbench:${sanitize(tag)}] ${sanitize(action)} on surface ${sanitize(id)}`;
  if (target) line += ` · ${sanitize(target)}`;
  if (comment) line += ` — ${sanitize(comment)}`;
  return line;
}

export type Interceptor = (paneId: string, surface: Surface, action: string, target: string | undefined, comment: string | undefined, phase: 'check' | 'apply') => { handled: boolean; error?: string };
export type ActResult = { ok: true; record: ActionRecord } | { ok: false; error: string };

export interface ActionDeps {
  store: SurfaceStore;
  pane(paneId: string): PaneInfo | undefined;
  folder(paneId: string): string;
  /** Types a line and its return into the pane (PaneService.submit). */
  submit(paneId: string, line: string): void;
  interceptors(): readonly Interceptor[];
  /** Whether the pane's shell sits at its prompt (it would run a typed line as a command). */
  shellAtPrompt?(paneId: string): boolean;
  now?: () => Date;
}

function optionNames(model: Record<string, unknown>): string[] | undefined {
  if (!Array.isArray(model.options)) return undefined;
  return model.options.map((o) => (o && typeof o === 'object' ? String((o as { name?: unknown }).name ?? '') : '')).filter(Boolean);
}

/** What is wrong with this action on this surface, in one sentence; the target to use otherwise. */
export function checkAction(surface: Surface, action: string, target?: string, comment?: string): { error: string } | { target?: string } {
  const spec = kindSpec(surface.kind);
  if (!spec) return { error: `surface "${surface.id}" has an unknown kind — dismiss it` };
  if (!spec.actions.includes(action)) {
    return { error: `a ${surface.kind} does not offer "${action}" — it offers ${spec.actions.join(', ')}` };
  }
  if (comment !== undefined && typeof comment !== 'string') return { error: 'the comment must be text — write it in the composer and send again' };
  if (target !== undefined && typeof target !== 'string') return { error: 'the target must be text — pick an option or a hunk and send again' };
  if (comment && utf8Bytes(comment) > LIMITS.commentBytes) {
    return { error: `the comment is ${Math.ceil(utf8Bytes(comment) / 1024)} KiB — a comment is at most 4 KiB; shorten it and send again` };
  }
  if (spec.commented.includes(action) && !comment?.trim()) return { error: `"${action}" needs a comment — write one in the composer and send again` };
  let t = target?.trim() ? target : undefined;
  if (action === 'approve' && surface.kind === 'decision' && !t) {
    const rec = (surface.model.options as Array<{ name?: string; recommended?: boolean }> | undefined)?.find((o) => o?.recommended);
    if (rec?.name) t = rec.name;
  }
  if (spec.targeted.includes(action)) {
    if (!t) return { error: `"${action}" needs a target — ${action === 'choose' ? 'pick an option' : 'pick a hunk (path#hunk-N)'} and send again` };
    if (action === 'choose') {
      const names = optionNames(surface.model);
      const multiple = surface.model.multiple === true;
      if (names && names.length > 0 && !multiple && !names.includes(t)) {
        return { error: `"${t}" is not one of this ${surface.kind}'s options — choose ${names.map((n) => `"${n}"`).join(', ')}` };
      }
    } else {
      const m = /^(.+)#hunk-([1-9]\d*)$/.exec(t);
      const files = Array.isArray(surface.model.files) ? (surface.model.files as Array<{ path?: string }>).map((f) => f?.path) : [];
      if (!m || !files.includes(m[1])) return { error: `"${t}" names no hunk of this change — use path#hunk-N with one of its files` };
    }
  }
  return { target: t };
}

export class ActionWriter {
  private readonly deps: ActionDeps;

  constructor(deps: ActionDeps) {
    this.deps = deps;
  }

  act(paneId: string, surfaceId: string, action: string, target?: string, comment?: string): ActResult {
    const { store } = this.deps;
    const pane = this.deps.pane(paneId);
    if (!pane) return { ok: false, error: `there is no pane "${paneId}" — it may have closed; nothing was sent` };
    const surface = store.get(paneId, surfaceId);
    if (!surface) return { ok: false, error: `there is no surface "${surfaceId}" on this bench — it was retired or dismissed; nothing was sent` };
    if (typeof action !== 'string' || !action) return { ok: false, error: 'an action needs a name — pick one of the card\'s buttons' };
    const checked = checkAction(surface, action, target, comment);
    if ('error' in checked) return { ok: false, error: checked.error };
    target = checked.target;
    comment = comment ? comment : undefined;
    const at = (this.deps.now?.() ?? new Date()).toISOString();
    const spec = kindSpec(surface.kind)!;

    if (action === 'dismiss') {
      store.dismiss(paneId, surfaceId);
      return { ok: true, record: { action, at } };
    }
    if (spec.viewOnly.includes(action)) return { ok: true, record: { action, target, at } };

    const repeatKey = (r: { action: string; target?: string; comment?: string }) =>
      `${r.action}\n${r.target ?? ''}\n${spec.commented.includes(r.action) ? r.comment ?? '' : ''}`;
    // An action on what a live diff no longer shows is not a repeat (revisions.ts).
    const previous = currentRecords(surface).find((r) => repeatKey(r) === repeatKey({ action, target, comment }));
    if (previous) {
      return { ok: false, error: `"${action}"${target ? ` on ${target}` : ''} was already sent for this surface at ${previous.at} — it is not sent twice` };
    }
    if (pane.status !== 'running') {
      return { ok: false, error: pane.ended ? 'the pane ended with the service — resume it, then act again; nothing was sent' : 'the pane\'s program has exited — restart the pane, then act again; nothing was sent' };
    }

    // 0. an interceptor may refuse (or claim) before anything is written
    let claimed = false;
    for (const fn of this.deps.interceptors()) {
      try {
        const r = fn(paneId, surface, action, target, comment, 'check');
        if (r.handled && r.error) return { ok: false, error: r.error };
        if (r.handled) claimed = true;
      } catch {
        // a failing check refuses nothing
      }
    }
    // A line typed at a bare shell prompt would be run as a command (a `$(…)` or a
    // backquoted name in an option would execute): only a program reads it.
    if (!claimed && this.deps.shellAtPrompt?.(paneId)) {
      return { ok: false, error: 'nothing in this pane is reading — its shell would run the line as a command; start the agent again, then act; nothing was sent' };
    }

    // 1. the record, fsync'd
    const entry: Record<string, unknown> = { td: TDSP_VERSION, type: 'action', surface: surfaceId, action };
    if (target !== undefined) entry.target = target;
    if (comment !== undefined) entry.comment = comment;
    entry.at = at;
    try {
      const folder = this.deps.folder(paneId);
      fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
      const fd = fs.openSync(path.join(folder, ACTIONS_FILE), 'a', 0o600);
      try {
        fs.writeSync(fd, `${JSON.stringify(entry)}\n`);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
    } catch (e) {
      return { ok: false, error: `could not record the action in actions.jsonl (${(e as Error).message}) — nothing was sent` };
    }

    // 2. an interceptor, or the line typed into the pane
    const record: ActionRecord = { action, at };
    if (target !== undefined) record.target = target;
    if (comment !== undefined) record.comment = comment;
    let handled = false;
    for (const fn of this.deps.interceptors()) {
      try {
        const r = fn(paneId, surface, action, target, comment, 'apply');
        if (r.handled && r.error) return { ok: false, error: r.error };
        if (r.handled) {
          handled = true;
          break;
        }
      } catch {
        // a failing interceptor does not stop the action: the line is typed instead
      }
    }
    if (!handled) {
      // As the text shows it: a target only where the action names a part (an option, a hunk).
      const line = actionLine(pane.tag, action, surfaceId, spec.targeted.includes(action) ? target : undefined, comment);
      try {
        this.deps.submit(paneId, line);
      } catch (e) {
        return { ok: false, error: `could not type the action into the pane (${(e as Error).message}) — it is in actions.jsonl; try again` };
      }
      record.line = line;
    }
    store.addAction(paneId, surfaceId, record);
    return { ok: true, record };
  }
}

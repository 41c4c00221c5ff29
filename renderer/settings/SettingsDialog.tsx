/**
 * The settings screen (Ctrl+, / Cmd+,, the title bar's gear, the Electron menu): every
 * setting, grouped, each with one line of help. A change is checked, applied and saved
 * at once (`settings.set`; text fields a moment after typing stops, or on leaving the
 * field); a refusal is one sentence under the field, and the field keeps what was typed.
 * A settings.json that could not be used at start is reported at the top. A modal
 * dialog: focus starts on the first field, Tab stays inside, Escape closes.
 */
import { useEffect, useRef, useState, type KeyboardEvent, type ReactElement } from 'react';
import { useStore } from 'zustand';
import type { Settings } from '../../preload/contract.ts';
import { useWindow, useWindowState } from '../context.ts';
import { shortcutLabel } from '../keys.ts';
import { tabRound } from '../tab-round.ts';
import { shownSentence } from '../../common/sentence.ts';
import { FIELDS, GROUPS, fieldId, parseInput, patchFor, shown, type Field } from './fields.ts';
import { hideSettings, settingsUi } from './ui.ts';
import { DevicesSection } from './DevicesSection.tsx';
import './settings.css';

export function SettingsDialog(): ReactElement | null {
  const open = useStore(settingsUi, (s) => s.open);
  const n = useStore(settingsUi, (s) => s.n);
  if (!open) return null;
  return <Dialog n={n} />;
}

type Status = { key: string; text: string; tone: 'saved' | 'error' } | null;

function Dialog({ n }: { n: number }): ReactElement {
  const ctx = useWindow();
  const settings = useWindowState((s) => s.settings);
  const problem = useWindowState((s) => s.settingsProblem);
  const platform = useWindowState((s) => s.platform);
  const root = useRef<HTMLDivElement>(null);
  const [errors, setErrors] = useState<Partial<Record<string, string>>>({});
  const [status, setStatus] = useState<Status>(null);

  useEffect(() => {
    root.current?.querySelector<HTMLElement>('select, input')?.focus();
  }, [n]);

  const close = (): void => {
    hideSettings();
    const s = ctx.store.getState();
    if (s.focused) s.focusPane(s.focused, true);
  };

  /** Check, apply and save one setting; the core has the last word. */
  const save = async (field: Field, input: string | boolean): Promise<void> => {
    const parsed = parseInput(field, input);
    const id = fieldId(field);
    if (!parsed.ok) {
      setErrors((e) => ({ ...e, [id]: parsed.error }));
      return;
    }
    try {
      const next = await ctx.api.invoke('settings.set', patchFor(field, parsed.value, ctx.store.getState().settings));
      ctx.store.getState().settingsChanged(next);
      ctx.store.getState().settingsSaved();
      setErrors((e) => ({ ...e, [id]: undefined }));
      setStatus({ key: id, text: `${field.label} saved.`, tone: 'saved' });
    } catch (err) {
      // The core names the setting by its key ("worktreeFolder must be …"); the screen by its label.
      const msg = (err instanceof Error ? err.message : String(err)).replace(new RegExp(`^${id.replace('.', '\\.')}\\b`), field.label);
      setErrors((e) => ({ ...e, [id]: shownSentence(msg) }));
    }
  };

  // Tab and Shift+Tab stay inside the dialog; Escape closes it.
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>): void => {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      close();
      return;
    }
    tabRound(root.current, e);
  };

  const shortcut = shortcutLabel('open-settings', platform);
  return (
    <div className="td-modal-backdrop" onPointerDown={(e) => { if (e.target === e.currentTarget) close(); }}>
      <div ref={root} className="td-modal settings" role="dialog" aria-modal="true" aria-labelledby="settings-title" aria-describedby="settings-about" onKeyDown={onKeyDown}>
        <div className="settings-head">
          <h2 id="settings-title">Settings</h2>
          <button type="button" className="icon-button" aria-label="Close settings" title="Close (Escape)" onClick={close}>×</button>
        </div>
        <p id="settings-about" className="hint settings-about">Each change applies and is saved at once{shortcut ? `; ${shortcut} opens this screen` : ''}.</p>
        {problem ? <p className="settings-problem" role="alert">{problem}</p> : null}
        <div className="settings-body">
          {GROUPS.map((group) => (
            <fieldset key={group} className="settings-group">
              <legend>{group}</legend>
              {FIELDS.filter((f) => f.group === group).map((f) => (
                <SettingField key={fieldId(f)} field={f} value={shown(f, settings)} error={errors[fieldId(f)]} onSave={(v) => void save(f, v)} onDraft={() => setErrors((e) => ({ ...e, [fieldId(f)]: undefined }))} />
              ))}
            </fieldset>
          ))}
          <DevicesSection />
        </div>
        <p className="settings-status" role="status" aria-live="polite">{status?.tone === 'saved' ? status.text : ''}</p>
      </div>
    </div>
  );
}

function SettingField(props: { field: Field; value: string | boolean; error: string | undefined; onSave(v: string | boolean): void; onDraft(): void }): ReactElement {
  const { field: f, value, error } = props;
  const id = `setting-${fieldId(f).replace('.', '-').replace(':', '-')}`;
  const described = `${id}-help${error ? ` ${id}-error` : ''}`;
  const help = <p id={`${id}-help`} className="hint">{f.help}</p>;
  const err = error ? <p id={`${id}-error`} className="settings-error" role="alert">{error}</p> : null;
  if (f.kind === 'toggle') {
    return (
      <div className="settings-field is-toggle" data-setting={fieldId(f)}>
        <label className="settings-toggle">
          <input id={id} type="checkbox" role="switch" checked={value === true} aria-describedby={described} onChange={(e) => props.onSave(e.target.checked)} />
          <span>{f.label}</span>
        </label>
        {help}
        {err}
      </div>
    );
  }
  if (f.kind === 'choice') {
    return (
      <div className="settings-field" data-setting={fieldId(f)}>
        <label htmlFor={id}>{f.label}</label>
        <select id={id} value={String(value)} aria-describedby={described} onChange={(e) => props.onSave(e.target.value)}>
          {f.choices.map((c) => <option key={c.value} value={c.value}>{c.label}</option>)}
        </select>
        {help}
        {err}
      </div>
    );
  }
  return <TextField {...props} id={id} described={described} help={help} err={err} />;
}

/** A text or number field: saved a moment after typing stops, on Enter, or on leaving it. */
function TextField(props: { field: Field; value: string | boolean; error: string | undefined; onSave(v: string): void; onDraft(): void; id: string; described: string; help: ReactElement; err: ReactElement | null }): ReactElement {
  const { field: f, id } = props;
  const [draft, setDraft] = useState(String(props.value));
  const saved = useRef(String(props.value));
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  // A change from elsewhere (zoom keys, another window) shows, unless this field is being edited.
  useEffect(() => {
    if (draft === saved.current) setDraft(String(props.value));
    saved.current = String(props.value);
  }, [props.value]);
  useEffect(() => () => clearTimeout(timer.current), []);
  const commit = (text: string): void => {
    clearTimeout(timer.current);
    if (text !== saved.current) props.onSave(text);
  };
  return (
    <div className="settings-field" data-setting={fieldId(f)}>
      <label htmlFor={id}>{f.label}</label>
      <input
        id={id}
        type={f.kind === 'number' ? 'number' : 'text'}
        {...(f.kind === 'number' ? { min: f.min, max: f.max, step: f.step, inputMode: 'numeric' as const } : { placeholder: f.kind === 'text' || f.kind === 'command' ? f.placeholder : undefined })}
        className={f.kind === 'command' || f.key === 'worktreeSetup' || f.key === 'worktreeFolder' ? 'is-mono' : undefined}
        value={draft}
        spellCheck={false}
        autoComplete="off"
        aria-invalid={props.error ? true : undefined}
        aria-describedby={props.described}
        onChange={(e) => {
          const text = e.target.value;
          setDraft(text);
          props.onDraft();
          clearTimeout(timer.current);
          timer.current = setTimeout(() => commit(text), 500);
        }}
        onBlur={() => commit(draft)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            commit(draft);
          }
        }}
      />
      {props.help}
      {props.err}
    </div>
  );
}

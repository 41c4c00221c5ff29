/**
 * One theme stylesheet for every DOM-rendered terminal of the window that draws in the same
 * colours and font (issue 38, item 4).
 *
 * xterm's DOM renderer writes a stylesheet of its own into each terminal (`_injectCss`: ~800
 * rules, the 256 colours three times over, every selector scoped to that terminal's class), so a
 * window opening 32 terminals parsed 32 copies of the same sheet and matched every span against
 * all of them. Here the first terminal of a theme writes it as xterm does; the text, its
 * terminal's class replaced by a class of its own (`td-xterm-theme-N`), goes into one `<style>`
 * at the end of the document's head (after the app's sheets, as xterm's, in the terminal, was),
 * and every terminal drawing with the same colours, font, size, weights and cursor width gets
 * that class and an empty sheet of its own. A theme change (xterm's `onChangeColors`) or an
 * option xterm reads there goes through the same path: the terminal moves to the other class.
 *
 * xterm keeps its DomRenderer to itself; the change is put on its prototype, reached through the
 * first opened terminal's renderer, as the width memo is (`width-memo.ts`). Where that path is
 * not there (another xterm, the WebGL renderer first), nothing changes.
 */
import type { Terminal } from '@xterm/xterm';

interface CssColor {
  css: string;
}

/** What `_injectCss` is given (xterm's ReadonlyColorSet, the parts read here). */
interface ColorsLike {
  foreground: CssColor;
  background: CssColor;
  cursor: CssColor;
  cursorAccent: CssColor;
  selectionBackgroundOpaque: CssColor;
  selectionInactiveBackgroundOpaque: CssColor;
  ansi: readonly CssColor[];
}

interface DomRendererLike {
  _terminalSelector: string;
  _element: HTMLElement;
  _screenElement: HTMLElement;
  _document: Document;
  _themeStyleElement?: HTMLStyleElement;
  _optionsService: { rawOptions: { fontFamily?: string; fontSize?: number; fontWeight?: unknown; fontWeightBold?: unknown; cursorWidth?: number } };
  _injectCss(colors: ColorsLike): void;
  /** The shared sheet's class this terminal has (set here). */
  _tdThemeClass?: string;
}

/** The shared sheets, by everything xterm's sheet is made of. */
const sheets = new Map<string, { cls: string; style: HTMLStyleElement }>();
let patched: object | undefined;

/** The key of one theme sheet: the colours it writes and the options it reads. Pure. */
export function themeSheetKey(colors: ColorsLike, o: DomRendererLike['_optionsService']['rawOptions']): string {
  return [
    colors.foreground.css,
    colors.background.css,
    colors.cursor.css,
    colors.cursorAccent.css,
    colors.selectionBackgroundOpaque.css,
    colors.selectionInactiveBackgroundOpaque.css,
    colors.ansi.map((c) => c.css).join(','),
    o.fontFamily,
    o.fontSize,
    String(o.fontWeight),
    String(o.fontWeightBold),
    o.cursorWidth,
  ].join('\u0000');
}

/** A terminal's sheet as shared: every use of its own selector (`.xterm-dom-renderer-owner-N`, not a longer number) becomes `.cls`. Pure. */
export function sharedSheetText(text: string, selector: string, cls: string): string {
  const escaped = selector.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return text.replace(new RegExp(`${escaped}(?![0-9])`, 'g'), `.${cls}`);
}

/** How many shared theme sheets the page has (the tests read it). */
export function themeSheetCount(): number {
  return sheets.size;
}

/** Make every DOM-rendered terminal of this page share its theme sheet with the others of its theme (once; call after `term.open`). */
export function shareThemeSheet(term: Terminal): void {
  if (patched) return;
  const renderer = (term as unknown as { _core?: { _renderService?: { _renderer?: { value?: DomRendererLike } } } })._core?._renderService?._renderer?.value;
  const proto = renderer ? (Object.getPrototypeOf(renderer) as DomRendererLike) : undefined;
  if (!proto || typeof proto._injectCss !== 'function' || typeof renderer!._terminalSelector !== 'string' || !renderer!._themeStyleElement || !renderer!._optionsService?.rawOptions) return;
  patched = proto;
  const inject = proto._injectCss;
  proto._injectCss = function (this: DomRendererLike, colors: ColorsLike): void {
    const key = themeSheetKey(colors, this._optionsService.rawOptions);
    let sheet = sheets.get(key);
    if (!sheet) {
      inject.call(this, colors);
      const own = this._themeStyleElement;
      if (!own) return;
      const cls = `td-xterm-theme-${sheets.size + 1}`;
      const style = this._document.createElement('style');
      style.dataset.tdXtermTheme = cls;
      style.textContent = sharedSheetText(own.textContent ?? '', this._terminalSelector, cls);
      this._document.head.appendChild(style);
      sheet = { cls, style };
      sheets.set(key, sheet);
    } else if (!this._themeStyleElement) {
      // xterm removes it when the terminal is disposed: it must be there.
      this._themeStyleElement = this._document.createElement('style');
      this._screenElement.appendChild(this._themeStyleElement);
    }
    this._themeStyleElement!.textContent = '';
    if (this._tdThemeClass && this._tdThemeClass !== sheet.cls) this._element.classList.remove(this._tdThemeClass);
    this._tdThemeClass = sheet.cls;
    this._element.classList.add(sheet.cls);
  };
}

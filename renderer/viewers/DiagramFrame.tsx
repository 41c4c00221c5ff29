/**
 * A diagram drawn in a sandboxed frame: Mermaid source is rendered to SVG (strict
 * security level, no HTML labels), the SVG is sanitized with DOMPurify's SVG profile,
 * and only then shown, inside an iframe with sandbox="allow-scripts" and never
 * allow-same-origin, so nothing in it can reach the app. An `svg` diagram skips
 * Mermaid and is sanitized the same way.
 */
import { useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { sanitizeSvg } from './markdown.ts';
import { drawnBefore, keepDrawn } from './drawn.ts';
import { useTheme, type Theme } from './theme.ts';

let seq = 0;
let mermaidQueue: Promise<unknown> = Promise.resolve();

async function renderMermaid(source: string, theme: Theme): Promise<string> {
  const { default: mermaid } = await import('mermaid');
  // Mermaid keeps global config: render one diagram at a time.
  const job = mermaidQueue.then(async () => {
    mermaid.initialize({
      startOnLoad: false,
      securityLevel: 'strict',
      // Quiet colours that sit with the window's own (styles.css).
      theme: 'base',
      themeVariables: theme === 'dark'
        ? { background: '#1b1d22', primaryColor: '#23272e', primaryBorderColor: '#4a515c', primaryTextColor: '#d5d8de', lineColor: '#8a919b', secondaryColor: '#1f2a3a', tertiaryColor: '#1b1d22', textColor: '#d5d8de', fontSize: '13px' }
        : { background: '#ffffff', primaryColor: '#f3f3f1', primaryBorderColor: '#b9b9b4', primaryTextColor: '#1f2328', lineColor: '#59616b', secondaryColor: '#e8eefb', tertiaryColor: '#ffffff', textColor: '#1f2328', fontSize: '13px' },
      htmlLabels: false,
      flowchart: { htmlLabels: false },
      fontFamily: 'system-ui, -apple-system, "Segoe UI", sans-serif',
    });
    const { svg } = await mermaid.render(`td-mermaid-${++seq}`, source);
    return svg;
  });
  mermaidQueue = job.catch(() => {});
  return job;
}

/** The aspect ratio (height / width) an SVG declares, if any. */
export function svgAspect(svg: string): number | undefined {
  const vb = /viewBox\s*=\s*["']\s*[-\d.]+[\s,]+[-\d.]+[\s,]+([\d.]+)[\s,]+([\d.]+)\s*["']/i.exec(svg);
  if (vb) {
    const w = Number(vb[1]);
    const h = Number(vb[2]);
    if (w > 0 && h > 0) return h / w;
  }
  const w = /<svg[^>]*\swidth\s*=\s*["']([\d.]+)(px)?["']/i.exec(svg);
  const h = /<svg[^>]*\sheight\s*=\s*["']([\d.]+)(px)?["']/i.exec(svg);
  if (w && h && Number(w[1]) > 0) return Number(h[1]) / Number(w[1]);
  return undefined;
}

/** The width an SVG asks for (its viewBox width), to avoid blowing small diagrams up. */
function svgWidth(svg: string): number | undefined {
  const vb = /viewBox\s*=\s*["']\s*[-\d.]+[\s,]+[-\d.]+[\s,]+([\d.]+)/i.exec(svg);
  return vb ? Number(vb[1]) : undefined;
}

export function frameDocument(svg: string, theme: Theme): string {
  const bg = theme === 'dark' ? '#1b1d22' : '#ffffff';
  return `<!doctype html><html><head><meta charset="utf-8"><style>html,body{margin:0;height:100%;background:${bg};overflow:hidden}body{display:flex;align-items:center;justify-content:center}svg{max-width:100%;max-height:100%;width:auto;height:auto}</style></head><body>${svg}</body></html>`;
}

export function DiagramFrame(props: { format: string; source: string; title: string; maxHeight?: number; fill?: boolean }): ReactNode {
  const theme = useTheme();
  const [svg, setSvg] = useState<string | null>(() => drawnBefore(props.format, theme, props.source));
  const [error, setError] = useState<string | null>(null);
  const [width, setWidth] = useState(0);
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    let live = true;
    setError(null);
    const before = drawnBefore(props.format, theme, props.source);
    if (before !== null) {
      setSvg(before);
      return;
    }
    const format = props.format.toLowerCase();
    const work = format === 'svg'
      ? Promise.resolve(props.source)
      : format === 'mermaid' || format === ''
        ? renderMermaid(props.source, theme)
        : Promise.reject(new Error(`"${props.format}" is not a diagram format this build draws; send mermaid or svg.`));
    work.then(
      (raw) => {
        if (!live) return;
        const clean = sanitizeSvg(raw);
        if (!clean.trim()) setError('The diagram had nothing drawable left after sanitizing; check its source.');
        else {
          keepDrawn(props.format, theme, props.source, clean);
          setSvg(clean);
        }
      },
      (err: unknown) => {
        if (live) setError(`The diagram could not be drawn: ${((err as Error)?.message ?? String(err)).split('\n')[0]}`);
      },
    );
    return () => {
      live = false;
    };
  }, [props.format, props.source, theme]);

  // Measured before the first paint, so a drawing kept from before shows at its height at once.
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setWidth(el.clientWidth));
    ro.observe(el);
    setWidth(el.clientWidth);
    return () => ro.disconnect();
  }, []);

  const aspect = svg ? svgAspect(svg) ?? 0.6 : 0.5;
  const natural = svg ? svgWidth(svg) : undefined;
  const shown = natural ? Math.min(width, natural) : width;
  const height = props.fill ? undefined : Math.max(60, Math.min(props.maxHeight ?? 400, Math.round(shown * aspect) + 8));

  return (
    <div ref={box} className={`td-diagram${props.fill ? ' is-fill' : ''}`} style={height ? { height } : undefined}>
      {error ? (
        <p className="tdb-error" role="alert">{error}</p>
      ) : svg ? (
        <iframe
          className="td-diagram-frame"
          title={`Diagram: ${props.title}`}
          sandbox="allow-scripts"
          srcDoc={frameDocument(svg, theme)}
          referrerPolicy="no-referrer"
        />
      ) : (
        <p className="tdb-meta">Drawing…</p>
      )}
    </div>
  );
}

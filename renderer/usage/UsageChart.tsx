/**
 * The Usage view's chart: stacked bars by day, a stack an agent (chart.js, only the pieces a
 * bar chart needs registered). Colours come from the theme's variables, so it follows light
 * and dark; the canvas is an image to assistive technology, its figures are in the table.
 */
import { useEffect, useRef, type ReactElement } from 'react';
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from 'chart.js';
import { money, tokens, type UsageBars } from '../../common/usage.ts';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip, Legend);

/** A colour an agent, the same in every chart (the theme's accents, then fixed ones). */
const AGENT_VARS: Record<string, string> = { claude: '--warn', codex: '--accent', gemini: '--ok', opencode: '--bad' };
const SPARE = ['#9d7cd8', '#4fb6be', '#d4976c', '#8a919b'];

export function UsageChart(props: { bars: UsageBars; measure: 'cost' | 'tokens'; currency: string; theme: string; label: string }): ReactElement {
  const canvas = useRef<HTMLCanvasElement>(null);
  const { bars, measure, currency, theme } = props;
  useEffect(() => {
    const el = canvas.current;
    if (!el) return;
    const css = getComputedStyle(document.documentElement);
    const v = (name: string): string => css.getPropertyValue(name).trim();
    const fmt = (n: number): string => (measure === 'cost' ? money(n, currency) : tokens(n));
    const chart = new Chart(el, {
      type: 'bar',
      data: {
        labels: bars.days,
        datasets: bars.stacks.map((s, i) => ({
          label: s.agent, data: s.values, backgroundColor: AGENT_VARS[s.agent] ? v(AGENT_VARS[s.agent]!) : SPARE[i % SPARE.length]!, borderRadius: 3, maxBarThickness: 48,
        })),
      },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        color: v('--text-dim'),
        font: { family: v('--ui-font') || 'sans-serif', size: 11 },
        scales: {
          x: { stacked: true, grid: { display: false }, ticks: { color: v('--text-dim') }, border: { color: v('--border-strong') } },
          y: { stacked: true, beginAtZero: true, grid: { color: v('--border') }, ticks: { color: v('--text-dim'), callback: (n) => fmt(Number(n)) }, border: { display: false } },
        },
        plugins: {
          legend: { position: 'bottom', labels: { color: v('--text'), boxWidth: 10, boxHeight: 10 } },
          tooltip: { callbacks: { label: (c) => `${c.dataset.label}: ${fmt(Number(c.raw))}` } },
        },
      },
    });
    return () => chart.destroy();
  }, [bars, measure, currency, theme]);
  return (
    <div className="td-usage-chart">
      <canvas ref={canvas} role="img" aria-label={props.label} />
    </div>
  );
}

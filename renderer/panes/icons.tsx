/** Small line icons for pane headers (16px, currentColor). */
import type { ReactElement } from 'react';

const base = { width: 16, height: 16, viewBox: '0 0 16 16', fill: 'none', stroke: 'currentColor', strokeWidth: 1.3, strokeLinecap: 'round' as const, strokeLinejoin: 'round' as const, 'aria-hidden': true };

export const SplitRightIcon = (): ReactElement => (
  <svg {...base}><rect x="2.5" y="3" width="11" height="10" rx="1.5" /><path d="M8 3v10" /></svg>
);
export const SplitDownIcon = (): ReactElement => (
  <svg {...base}><rect x="2.5" y="3" width="11" height="10" rx="1.5" /><path d="M2.5 8h11" /></svg>
);
export const CloseIcon = (): ReactElement => (
  <svg {...base}><path d="M4.5 4.5l7 7M11.5 4.5l-7 7" /></svg>
);
export const BenchIcon = (): ReactElement => (
  <svg {...base}><rect x="2.5" y="3" width="11" height="10" rx="1.5" /><path d="M9.5 3v10M11 5.5h1M11 7.5h1" /></svg>
);
export const RestartIcon = (): ReactElement => (
  <svg {...base}><path d="M3.5 8a4.5 4.5 0 1 0 1.4-3.3" /><path d="M3.5 2.8v2.4h2.4" /></svg>
);
export const SearchIcon = (): ReactElement => (
  <svg {...base}><circle cx="7" cy="7" r="3.8" /><path d="M10 10l3 3" /></svg>
);
export const ArrowUpIcon = (): ReactElement => (
  <svg {...base}><path d="M4.5 9.5L8 6l3.5 3.5" /></svg>
);
export const ArrowDownIcon = (): ReactElement => (
  <svg {...base}><path d="M4.5 6.5L8 10l3.5-3.5" /></svg>
);
export const GearIcon = (): ReactElement => (
  <svg {...base}><circle cx="8" cy="8" r="2.2" /><path d="M8 1.8l1 1.7 1.9-.5.5 1.9 1.7 1-1 1.7 1 1.7-1.7 1-.5 1.9-1.9-.5-1 1.7-1-1.7-1.9.5-.5-1.9-1.7-1 1-1.7-1-1.7 1.7-1 .5-1.9 1.9.5z" /></svg>
);
export const ChartIcon = (): ReactElement => (
  <svg {...base}><path d="M2.5 13.5h11M4.5 11.5v-3M8 11.5v-7M11.5 11.5v-5" /></svg>
);
export const TerminalIcon = (): ReactElement => (
  <svg {...base}><path d="M3.5 5l3 3-3 3M8 11.5h4.5" /></svg>
);
export const SunIcon = (): ReactElement => (
  <svg {...base}><circle cx="8" cy="8" r="2.8" /><path d="M8 1.8v1.6M8 12.6v1.6M1.8 8h1.6M12.6 8h1.6M3.6 3.6l1.1 1.1M11.3 11.3l1.1 1.1M3.6 12.4l1.1-1.1M11.3 4.7l1.1-1.1" /></svg>
);
export const MoonIcon = (): ReactElement => (
  <svg {...base}><path d="M12.8 10.2A5.2 5.2 0 0 1 5.8 3.2a5.2 5.2 0 1 0 7 7z" /></svg>
);
export const SystemThemeIcon = (): ReactElement => (
  <svg {...base}><circle cx="8" cy="8" r="5.2" /><path d="M8 2.8v10.4a5.2 5.2 0 0 0 0-10.4z" fill="currentColor" /></svg>
);

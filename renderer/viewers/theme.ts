/**
 * The theme the window shows (light or dark), for things that must pick colours in
 * script (Mermaid). It follows the root element's `data-theme` when the app sets one,
 * else the OS.
 */
import { useSyncExternalStore } from 'react';

export type Theme = 'light' | 'dark';

export function currentTheme(): Theme {
  const root = document.documentElement;
  const attr = root.dataset.theme;
  if (attr === 'light' || attr === 'dark') return attr;
  const scheme = getComputedStyle(root).colorScheme;
  if (scheme === 'dark' || scheme === 'light') return scheme;
  return matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

function subscribe(cb: () => void): () => void {
  const mo = new MutationObserver(cb);
  mo.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme', 'class', 'style'] });
  const mq = matchMedia('(prefers-color-scheme: dark)');
  mq.addEventListener('change', cb);
  return () => {
    mo.disconnect();
    mq.removeEventListener('change', cb);
  };
}

export function useTheme(): Theme {
  return useSyncExternalStore(subscribe, currentTheme, () => 'dark');
}

/**
 * The theme the door put on the page's root element with its first paint (main/door/first-paint.ts),
 * read as this module is first evaluated: before main.tsx sets one of its own. Undefined where
 * no door did (Electron, a relay, a browser without client hints and a "system" setting).
 */
export const doorTheme: string | undefined = typeof document === 'undefined' ? undefined : document.documentElement.dataset.theme;

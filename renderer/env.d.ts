// Stylesheets are imported for their side effect; Vite bundles them.
declare module '*.css' {}

/** The app version this renderer was built from (vite.config.ts `define`). */
declare const __TD_VERSION__: string;

// serve's bundle entry (out/serve/serve.mjs, built by scripts/build.mjs): the same relay as
// `node main/serve/main.ts`, without type stripping at every start.
import { main } from '../main/serve/main.ts';

main();

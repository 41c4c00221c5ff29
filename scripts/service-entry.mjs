// The service bundle's entry (out/service/service.mjs, built by scripts/build.mjs): the
// same service as `node main/service/main.ts`, without type stripping at every start.
import { main } from '../main/service/main.ts';

main();

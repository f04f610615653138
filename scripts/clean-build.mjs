// First step of `npm run build`: removes what the compiler wrote last time (dist/server,
// dist/electron, and dist/bench of older builds), so that a file whose source was deleted,
// moved or left out of the build (tests, test helpers) cannot linger there and ship in the
// package. The console's build (dist/console) is emptied by Vite itself.
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
await Promise.all(['server', 'electron', 'bench'].map((d) => rm(`${dist}${d}`, { recursive: true, force: true })));

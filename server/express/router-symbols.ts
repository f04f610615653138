// The symbols module of the router Express routes with (`router/lib/symbols.js`), read from the
// copy Express itself loads: its symbols are made per copy, so another copy's would not match.
// Run from the sources or the tsc build, it is required from where Express is installed; the
// server's bundles (scripts/bundle-server.mjs) replace this file with a static import of the
// same module, which esbuild resolves from Express's folder too and bundles once, shared with the
// router it bundles for Express.
import { createRequire } from 'node:module';

export interface RouterSymbols { matchedRoute?: unknown }

/** The router's symbols, or undefined when they cannot be found (a router without them). */
export function routerSymbols(): RouterSymbols | undefined {
  try {
    const fromExpress = createRequire(createRequire(import.meta.url).resolve('express'));
    return fromExpress('router/lib/symbols.js') as RouterSymbols;
  } catch {
    return undefined;
  }
}

#!/usr/bin/env node
// The `homebase` bin: in a checkout (the TypeScript sources are there) it runs them through
// tsx, so that it never runs a stale build; in the npm package (sources not shipped) it runs
// the build (its bundle). A CommonJS file (bin/package.json says so): Node starts its ES module
// loader only when something is imported, which a start from the bundle then never does.
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');

// `serve --in-memory` with an admin password starts by storing the first admin, whose bcrypt hash
// is most of the start's own time: it is begun here, on bcrypt's threads, while the server's code
// loads; the server takes it (hashAhead in server/modules/users/repo.ts) when password and cost
// match, and hashes again otherwise.
const args = process.argv.slice(2);
if (args[0] === 'serve' && (args.includes('--in-memory') || (['1', 'true'].includes(process.env.HOMEBASE_IN_MEMORY ?? '') && !args.some((a) => a === '--data' || a.startsWith('--data='))))) {
  const at = args.findIndex((a) => a === '--admin-password' || a.startsWith('--admin-password='));
  const password = at < 0 ? process.env.HOMEBASE_ADMIN_PASSWORD : args[at].includes('=') ? args[at].slice(args[at].indexOf('=') + 1) : args[at + 1];
  if (password && password.length >= 8) {
    const { hash } = require('@node-rs/bcrypt');
    const early = hash(password, 10);
    early.catch(() => undefined);
    globalThis[Symbol.for('homebase.earlyHash')] = { password, cost: 10, hash: early };
  }
}

const source = join(__dirname, '..', 'server', 'cli.ts');
if (existsSync(source)) {
  (async () => {
    const { register } = await import('tsx/esm/api');
    register();
    await import(pathToFileURL(source).href);
  })();
} else {
  // The bundle (npm run build:bundle) starts faster; dist/server/cli.js is the same program.
  // Its CommonJS build runs with a V8 code cache (code-cache.js), faster again from the second start.
  const commonJs = join(__dirname, '..', 'dist', 'server', 'bundle', 'cli.cjs');
  if (existsSync(commonJs)) {
    require('./code-cache.js').runCommonJs(commonJs);
  } else {
    const bundle = join(__dirname, '..', 'dist', 'server', 'bundle', 'cli.js');
    import(pathToFileURL(existsSync(bundle) ? bundle : join(__dirname, '..', 'dist', 'server', 'cli.js')).href);
  }
}

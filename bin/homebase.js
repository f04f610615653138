#!/usr/bin/env node
// The `homebase` bin: in a checkout (the TypeScript sources are there) it runs them through
// tsx, so that it never runs a stale build; in the npm package (sources not shipped) it runs
// the build.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const source = fileURLToPath(new URL('../server/cli.ts', import.meta.url));
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(source).href);
} else {
  await import(pathToFileURL(fileURLToPath(new URL('../dist/server/cli.js', import.meta.url))).href);
}

#!/usr/bin/env node
// `npm run dev`: the server (in memory unless HOMEBASE_DEV_DATA names a folder) and Vite with hot
// reload, Vite proxying /api (HTTP and the realtime WebSocket) to the server. Prints the Vite
// console link with the token. Ctrl+C stops both.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const port = process.env.HOMEBASE_DEV_PORT ?? '4700';
const data = process.env.HOMEBASE_DEV_DATA;
const server = spawn(process.execPath, ['--import', 'tsx', 'server/cli.ts', 'serve', '--json', '--port', port,
  ...(data ? ['--data', data] : ['--in-memory']), ...process.argv.slice(2)], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });

let out = '';
server.stdout.on('data', async (chunk) => {
  if (out.includes('\n')) { process.stdout.write(chunk); return; }
  out += chunk;
  const nl = out.indexOf('\n');
  if (nl < 0) return;
  const line = JSON.parse(out.slice(0, nl));
  const { createServer } = await import('vite');
  process.env.HOMEBASE_DEV_SERVER = line.consoleUrl;
  const vite = await createServer({ configFile: join(root, 'renderer/vite.config.ts') });
  await vite.listen();
  const url = vite.resolvedUrls?.local[0] ?? 'http://127.0.0.1:5173/';
  console.log(`API:     ${line.url}`);
  console.log(`Console (hot reload): ${url}#token=${line.consoleToken}`);
  const stop = async () => { await vite.close(); server.kill('SIGTERM'); };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
});
server.on('exit', (code) => process.exit(code ?? 0));

// Runs the real CLI in a child process (as `npm run --silent serve` would) for process-level
// tests: start line, signals, lock, kill -9.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface Started { child: ChildProcess; line: { url: string; consoleUrl: string; consoleToken: string; workspaces: string[] }; stderr: () => string }

/** Spawns `homebase <args>` from the TypeScript source. */
export function spawnCli(args: string[], env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'server/cli.ts', ...args], {
    cwd: ROOT, env: { ...process.env, HOMEBASE_LOG_LEVEL: 'silent', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Spawns `homebase serve --json ...` and resolves with its start line. */
export function serveJson(args: string[], env: Record<string, string> = {}): Promise<Started> {
  const child = spawnCli(['serve', '--json', ...args], env);
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => { err += d; });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve({ child, line: JSON.parse(out.slice(0, nl)), stderr: () => err });
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${err}`)));
  });
}

/** Waits for a child to exit; resolves with its code and what it printed. */
export function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => { stdout += d; });
  child.stderr?.on('data', (d) => { stderr += d; });
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr })));
}

/** Waits until a child has exited and its output pipes are drained, so that whatever it printed
 *  has been read: a test that checks something was never printed waits for this, not a while. */
export function closed(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null && child.stdout?.readableEnded !== false && child.stderr?.readableEnded !== false) return Promise.resolve();
  return new Promise((resolve) => child.once('close', () => resolve()));
}

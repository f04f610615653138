// The start output's links work as printed: the example URL answers without a token, and the API
// reference link opens signed in (it carries the console token in its fragment, as the console
// link does).
import { afterEach, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { spawnCli } from './test/spawn.js';

const children: ChildProcess[] = [];
afterEach(() => { for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL'); });

function startOutput(child: ChildProcess): Promise<string> {
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d) => { out += d; if (out.includes('Requests:')) resolve(out); });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}

describe('homebase serve start output', { timeout: 60_000 }, () => {
  it('prints an example URL that answers without a token, and an API reference link that signs in', async () => {
    const child = spawnCli(['serve', '--port', '0', '--in-memory', '--admin-password', 'admin-password-1', '--console-token', 'banner-token-1']);
    children.push(child);
    const out = await startOutput(child);
    const example = /\(e\.g\. GET (\S+)\)/.exec(out)![1];
    const res = await fetch(example);
    expect(res.status, example).toBe(200);
    const reference = /API reference:\s+(\S+)/.exec(out)![1];
    expect(reference).toMatch(/\/app\/demo\/api\/#token=banner-token-1$/);
    const page = await fetch(reference.split('#')[0]);
    expect(page.status).toBe(200);
  });
});

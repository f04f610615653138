// A scheduled scenario that fires every second and calls a test receiver: a test that must show
// that something did NOT happen on schedule (a deactivated or deleted scenario stayed quiet) waits
// for beats of the metronome, proof that ticks were due and fired meanwhile, instead of sleeping.
import { waitFor, type Receiver } from './receiver.js';

export interface Metronome {
  /** Beats received so far. */
  beats(): number;
  /** Waits for `n` more beats (the first of them lets a tick that was in flight finish). */
  waitBeats(n: number): Promise<void>;
  /** Deletes the metronome's scenario. */
  stop(): Promise<void>;
}

/** Starts a metronome in the workspace whose API is `api` (`.../app/{id}`), as `token`'s admin. */
export async function startMetronome(api: string, token: string, rx: Receiver, name = 'metronome'): Promise<Metronome> {
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${api}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.status === 204 ? undefined : res.json();
  };
  const path = `/${name}`;
  const made = await call('POST', '/scenarios', { name, trigger: { type: 'schedule', cron: '* * * * * *' }, steps: [{ type: 'http', url: `${rx.url}${path}` }] }) as { _id: string };
  await call('POST', `/scenarios/${made._id}/activate`);
  const beats = () => rx.received.filter((r) => r.url === path).length;
  return {
    beats,
    async waitBeats(n) {
      const from = beats();
      await waitFor(() => beats() >= from + n, 10_000 + n * 2000, `${n} beats of the ${name}`);
    },
    async stop() { await call('DELETE', `/scenarios/${made._id}`); },
  };
}

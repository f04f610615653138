// Long queries run in steps: a generator that pauses every CHUNK units of work, run at once
// (small stores, internal reads) or in slices of the event loop (list requests), so that no
// query holds the server.
/** Work (documents visited, values compared or moved) between two looks at the clock: each
 *  loop over documents runs in plain functions a chunk at a time, the generator around them
 *  only pauses between chunks (V8 runs long loops inside a generator slower). */
export const CHUNK = 1024;
/** A query that has run this long gives the event loop a turn before it goes on, so that no
 *  list request holds the server for longer (other requests, health checks, timers and
 *  sockets are served in between). */
export const SLICE_MS = 8;

/** The steps of a query: a generator that yields every CHUNK units of work or so. */
export type Steps<T> = Generator<void, T, void>;

/** Runs the steps to the end at once (small stores, internal reads). */
export function runSteps<T>(steps: Steps<T>): T {
  for (;;) { const r = steps.next(); if (r.done) return r.value; }
}

/** Runs the steps for up to SLICE_MS; if they are not done by then, the rest runs in slices of
 *  SLICE_MS, one per event-loop turn (setImmediate), and a promise is returned. The documents a
 *  query reads are the versions of when it started (stored documents are replaced, never
 *  mutated, and the arrays it walks are its own); an index walk that pauses finds its place
 *  again by key, so a record written meanwhile may or may not be seen. */
export function runSliced<T>(steps: Steps<T>): T | Promise<T> {
  const first = slice(steps);
  if (first.done) return first.value;
  return new Promise<T>((resolve, reject) => {
    const next = () => {
      try {
        const r = slice(steps);
        if (r.done) resolve(r.value);
        else setImmediate(next);
      } catch (err) {
        reject(err);
      }
    };
    setImmediate(next);
  });
}

function slice<T>(steps: Steps<T>): { done: true; value: T } | { done: false } {
  const end = performance.now() + SLICE_MS;
  for (;;) {
    const r = steps.next();
    if (r.done) return { done: true, value: r.value };
    if (performance.now() >= end) return { done: false };
  }
}

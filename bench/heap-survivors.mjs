// What outlives a scavenge, by allocation site (docs/performance-history.md, change 16). Preload it into
// a server: `node --import ./bench/heap-survivors.mjs dist/server/cli.js serve ...`, drive load,
// then `kill -USR2 <pid>` starts V8's sampling heap profiler keeping only the objects that no
// young-generation collection freed (promoted, whether still live or dead since), and a second
// `kill -USR2` writes `survivors-<pid>.heapprofile` in the working folder (open it in Chrome
// DevTools, Memory tab). Not used by `npm run bench`.
import inspector from 'node:inspector';
import { writeFileSync } from 'node:fs';

const session = new inspector.Session();
session.connect();
let sampling = false;
process.on('SIGUSR2', () => {
  if (!sampling) {
    sampling = true;
    session.post('HeapProfiler.enable', () => session.post('HeapProfiler.startSampling',
      { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: false },
      (err) => console.error(err ? `heap-survivors: ${err.message}` : 'heap-survivors: sampling')));
    return;
  }
  session.post('HeapProfiler.stopSampling', (err, result) => {
    sampling = false;
    if (err) { console.error(`heap-survivors: ${err.message}`); return; }
    const file = `survivors-${process.pid}.heapprofile`;
    writeFileSync(file, JSON.stringify(result.profile));
    console.error(`heap-survivors: wrote ${file}`);
  });
});

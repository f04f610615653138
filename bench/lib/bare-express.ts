// The ceiling of our stack: a bare Express 5 app (JSON body parser, one handler) answering a
// small JSON object to any method and path. Spawned as its own process by the benchmark:
// `node --import tsx bench/lib/bare-express.ts PORT`.
import express from 'express';

const port = Number(process.argv[2] ?? 3999);
const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.use(express.json());
app.use((req, res) => {
  res.json({ _id: 'bare', ok: true, method: req.method, name: 'Ada Lovelace', role: 'admin', age: 36 });
});
app.listen(port, '127.0.0.1');

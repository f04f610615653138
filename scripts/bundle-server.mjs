// `npm run build:bundle`: the server as a few ES module files (dist/server/bundle/), the
// packages it uses bundled in, so that a start reads and links a handful of files instead of
// several hundred. The package's bin and its entries (`homebase`, `homebase/testing`) load it;
// dist/server/ (tsc) still holds the type declarations. Left outside: the native bcrypt binding,
// the PostgreSQL client (loaded only with a database; pg-native is optional), ws's optional
// native helpers.
import { build } from 'esbuild';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

// zod carries its error messages in some fifty languages (`z.locales`), about half of its code;
// the server uses English only (core/validation-messages.ts words its own). Every start compiles
// what the bundle holds, so `z.locales` holds `en` alone here.
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => (args.importer.includes(`${sep}node_modules${sep}zod${sep}`)
      ? { path: join(dirname(args.importer), '..', 'locales', 'en.js'), namespace: 'zod-english-only' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, (args) => ({ contents: `export { default as en } from ${JSON.stringify(args.path)};`, resolveDir: dirname(args.path), loader: 'js' }));
  },
};

// Express's router is bundled with Express. server/express/router-symbols.ts reads the symbols
// of the router copy Express uses by requiring it from Express's folder at run time, which in a
// bundle would load a second copy from node_modules: here that file becomes a static import of
// the module, resolved from Express's folder, so that esbuild bundles one copy for both.
const expressDir = dirname(createRequire(import.meta.url).resolve('express/package.json'));
const routerSymbolsBundled = {
  name: 'router-symbols-bundled',
  setup(b) {
    b.onLoad({ filter: /[\\/]server[\\/]express[\\/]router-symbols\.ts$/ }, () => ({
      contents: "import * as symbols from 'router/lib/symbols.js';\nexport function routerSymbols() { return symbols; }\n",
      resolveDir: expressDir,
      loader: 'js',
    }));
  },
};

// depd (http-errors', Express's and the router's deprecation messages) records the file of the
// module that calls depd('name'), which these call as they load, by asking the caller's stack
// frame for its file, line and column; only the file is kept. A line number makes V8 find every
// line end of the script the frame is in: the whole 5 MB bundle, at every start, for nothing.
// In the bundles that one call asks for the file alone, as depd computes it (with an eval's
// origin), so that nothing is different but the work; the messages depd prints when a
// deprecated call is made still carry their line and column. The build fails if depd changes.
const depdFileOnly = {
  name: 'depd-file-only',
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/]depd[\\/]index\.js$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      const call = '  var site = callSiteLocation(stack[1])\n  var file = site[0]\n';
      if (text.split(call).length !== 2) throw new Error(`${args.path}: depd() no longer reads its caller's file as expected; update the depd-file-only plugin`);
      const fileOnly = "  var file = stack[1].getFileName() || '<anonymous>'\n  if (stack[1].isEval()) file = stack[1].getEvalOrigin() + ', ' + file\n";
      return { contents: text.replace(call, fileOnly), loader: 'js' };
    });
  },
};

// mime-types fills its extension and type tables from mime-db's 2,500 types as it loads
// (Express and body-parser load it), for lookups by file extension that a start never makes.
// In the bundles the tables (and the list of conflicts made with them) are filled on their
// first read instead: the same objects, the same contents, filled by mime-types' own code.
const mimeTypesOnFirstUse = {
  name: 'mime-types-on-first-use',
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/]mime-types[\\/]index\.js$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      const fill = '\npopulateMaps(exports.extensions, exports.types)\n';
      if (text.split(fill).length !== 2) throw new Error(`${args.path}: mime-types no longer fills its tables as expected; update the mime-types-on-first-use plugin`);
      const onFirstUse = `
var tables = { extensions: exports.extensions, types: exports.types, _extensionConflicts: exports._extensionConflicts }
var filled = false
function fill () {
  if (!filled) { filled = true; populateMaps(tables.extensions, tables.types) }
}
Object.keys(tables).forEach(function (name) {
  Object.defineProperty(exports, name, {
    configurable: true,
    enumerable: true,
    get: function () { fill(); return tables[name] },
    set: function (value) { fill(); tables[name] = value }
  })
})
`;
      return { contents: text.replace(fill, onFirstUse), loader: 'js' };
    });
  },
};

// openapi-typescript and TypeScript serve `homebase types` only (loaded on use): left installed.
const external = ['@node-rs/bcrypt', 'pg', 'pg-native', 'bufferutil', 'utf-8-validate', 'openapi-typescript', 'typescript'];
const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = `${root}dist/server/bundle`;
await rm(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: { cli: 'server/cli.ts', 'public-api': 'server/public-api.ts', 'testing/index': 'server/testing/index.ts' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'chunks/[name]-[hash]',
  external,
  // CommonJS packages inside an ES module bundle still call require() for Node's built-ins.
  banner: { js: "import { createRequire as __homebaseRequire } from 'node:module'; const require = __homebaseRequire(import.meta.url);" },
  plugins: [zodEnglishOnly, routerSymbolsBundled, depdFileOnly, mimeTypesOnFirstUse],
  logLevel: 'warning',
});

// The CLI once more as one CommonJS file (cli.cjs), which the bin runs with a V8 code cache
// (bin/code-cache.js): Node 20 caches no compiled code of ES modules. One file, as CommonJS
// output cannot be split: what a start does not run stays uncompiled inside it. import.meta.url
// becomes the file's own URL.
await build({
  absWorkingDir: root,
  entryPoints: { cli: 'server/cli.ts' },
  outdir,
  outExtension: { '.js': '.cjs' },
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  external,
  define: { 'import.meta.url': '__homebaseModuleUrl' },
  banner: { js: "var __homebaseModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
  plugins: [zodEnglishOnly, routerSymbolsBundled, depdFileOnly, mimeTypesOnFirstUse],
  logLevel: 'warning',
});

// esbuild writes strings, identifiers and regular expressions in ASCII, but copies comments as
// they are, and a few of the packages' comments hold a dash or a section sign. One such byte
// makes Node decode a file as UTF-8 into a string of two bytes a character (twice the memory,
// several times the decoding time of a 5 MB file, at every start). They are written as \u
// escapes, which in a comment change nothing; a character outside a comment (never seen: the
// check is in case a later esbuild copies one) is left and named.
const nonAscii = /[^\x00-\x7f]/gu;
for (const file of await readdir(outdir, { recursive: true })) {
  if (!/\.(c?js)$/.test(file)) continue;
  const path = join(outdir, file);
  const text = await readFile(path, 'utf8');
  if (!/[^\x00-\x7f]/u.test(text)) continue;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!/[^\x00-\x7f]/u.test(line)) continue;
    const trimmed = line.trimStart();
    const comment = trimmed.startsWith('//') || trimmed.startsWith('*') || trimmed.startsWith('/*') ? 0 : line.indexOf('//');
    lines[i] = line.replace(nonAscii, (c, at) => {
      if (comment < 0 || at < comment) { console.warn(`${file}:${i + 1}: a non-ASCII character outside a comment is left as it is`); return c; }
      const code = c.codePointAt(0);
      return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
    });
  }
  await writeFile(path, lines.join('\n'));
}

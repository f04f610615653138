// Its own file, free of imports, so that the package's public type declarations can export it
// without pulling in the server's internals (public-api.ts).

/** A seed or dump file that cannot be used: reported in one line (no stack) by the CLI. */
export class DumpFileError extends Error {}

// Its own file in core, free of imports, so that the package's public type declarations can
// export it without pulling in the server's internals (public-api.ts); the workspaces module
// throws it and re-exports it from its face.

/** A seed or dump file that cannot be used: reported in one line (no stack) by the CLI. */
export class DumpFileError extends Error {}

// The IPC allow-list: every channel the renderer may use, in one place. The preload exposes
// only these, and the main process registers handlers for exactly these (ipc.ts checks both).
// The console reaches everything else over plain HTTP, as it does in a browser.
export const INVOKE_CHANNELS = {
  /** () => Promise<string>: the console token of the running server (handed over here, never in a URL). */
  getConsoleToken: 'homebase:get-console-token',
} as const;

export type InvokeChannel = (typeof INVOKE_CHANNELS)[keyof typeof INVOKE_CHANNELS];

export const ALLOWED_INVOKE_CHANNELS: readonly InvokeChannel[] = Object.values(INVOKE_CHANNELS);

// The server's logger (pino), on stderr so that stdout stays free for the CLI's start line.
// Quiet by default in tests; HOMEBASE_LOG_LEVEL overrides.
import pino, { type LogFn, type Logger } from 'pino';

const options: pino.LoggerOptions = {
  level: process.env.HOMEBASE_LOG_LEVEL ?? (process.env.VITEST ? 'silent' : 'info'),
  base: undefined,
  redact: {
    paths: ['password', '*.password', 'passwordHash', '*.passwordHash', 'value', '*.value', 'token', '*.token',
      'refreshToken', '*.refreshToken', 'headers.authorization', '*.headers.authorization'],
    censor: '***',
  },
};

// Made on the first line written, not as the server loads: making it compiles its redaction
// and opens the stream on stderr, which a start that writes no line does not need.
let made: Logger | undefined;
const real = (): Logger => (made ??= pino(options, pino.destination({ fd: 2, sync: false })));
const level = (name: 'debug' | 'info' | 'warn' | 'error'): LogFn =>
  function (...args: unknown[]) {
    const to = real();
    (to[name] as (...a: unknown[]) => void).apply(to, args);
  } as LogFn;

export const logger: Pick<Logger, 'debug' | 'info' | 'warn' | 'error'> = {
  debug: level('debug'),
  info: level('info'),
  warn: level('warn'),
  error: level('error'),
};

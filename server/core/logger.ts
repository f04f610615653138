// The server's logger (pino), on stderr so that stdout stays free for the CLI's start line.
// Quiet by default in tests; HOMEBASE_LOG_LEVEL overrides.
import pino from 'pino';

export const logger = pino({
  level: process.env.HOMEBASE_LOG_LEVEL ?? (process.env.VITEST ? 'silent' : 'info'),
  base: undefined,
  redact: {
    paths: ['password', '*.password', 'passwordHash', '*.passwordHash', 'value', '*.value', 'token', '*.token',
      'refreshToken', '*.refreshToken', 'headers.authorization', '*.headers.authorization'],
    censor: '***',
  },
}, pino.destination({ fd: 2, sync: false }));

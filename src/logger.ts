import pino, { type Logger } from 'pino';

/** The root logger. API keys never reach a log line, whatever is logged. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: {
      paths: ['req.headers["x-api-key"]', 'headers["x-api-key"]', '*.apiKey', '*.apiKeySecret', 'config.apiKeySecret', 'config.fallback.token', '*.token'],
      censor: '[redacted]',
    },
  });
}

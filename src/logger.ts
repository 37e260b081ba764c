import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';

/**
 * The root logger. API keys never reach a log line: nothing logs request headers, and these paths
 * are censored should one ever carry them. Exact paths, no wildcards: a wildcard makes pino walk
 * every logged object, on every line.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    redact: {
      paths: [
        'req.headers["x-api-key"]', 'headers["x-api-key"]', 'apiKey', 'apiKeySecret', 'token',
        'config.apiKeySecret', 'config.fallback.token', 'err.config.apiKeySecret', 'err.token',
      ],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

/** One line per answered request (Fastify's own request logging, two lines each, is off: app.ts). */
export function logRequests(app: FastifyInstance): void {
  app.addHook('onResponse', (request, reply, done) => {
    request.log.info({ method: request.method, url: request.url, statusCode: reply.statusCode, responseTime: Math.round(reply.elapsedTime) }, 'request');
    done();
  });
}

import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
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

/** Fastify's request logging with one line per answered request at info, instead of two. */
export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = { method: request.method, url: request.url, statusCode: reply.statusCode, responseTime: Math.round(reply.elapsedTime) };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request');
  }
}

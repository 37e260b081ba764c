import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';

/** How readable lines look (LOG_PRETTY=true): one line per entry, local time, no pid or host. */
const PRETTY_OPTIONS = { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true } as const;

/**
 * The root logger. API keys never reach a log line: nothing logs request headers, and these paths
 * are censored should one ever carry them. Exact paths, no wildcards: a wildcard makes pino walk
 * every logged object, on every line. `prettyLines` (LOG_PRETTY) writes readable lines instead of
 * JSON: through pino-pretty in a worker thread, or into `destination` when one is given.
 */
export function createLogger(level: string, destination?: pino.DestinationStream, prettyLines = false): Logger {
  const options: pino.LoggerOptions = {
    level,
    redact: {
      paths: [
        'req.headers["x-api-key"]',
        'headers["x-api-key"]',
        'req.headers.authorization',
        'headers.authorization',
        'apiKey',
        'apiKeySecret',
        'token',
        'config.apiKeySecret',
        'config.fallback.token',
        'config.metricsToken',
        'err.config.apiKeySecret',
        'err.token',
      ],
      censor: '[redacted]',
    },
  };
  if (prettyLines) {
    if (destination) return pino(options, pretty({ ...PRETTY_OPTIONS, colorize: false, destination, sync: true }));
    return pino(
      options,
      pino.transport({
        target: 'pino-pretty',
        options: { ...PRETTY_OPTIONS, colorize: process.stdout.isTTY === true },
      }),
    );
  }
  return destination ? pino(options, destination) : pino(options);
}

/**
 * Fastify's request logging: one line per answered request at info (instead of two), with what the
 * request did as the core recorded it (request.stats): the account's id (never its key), the error
 * code, cache, source, upstream time, credits and lookups. The request id is the line's reqId (the
 * client's x-request-id when sane); coreRequestId is the core's own (the ledger's `request`).
 */
export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const s = request.stats as FastifyRequest['stats'] | null;
    const line = {
      method: request.method,
      url: request.url,
      route: request.routeOptions.url ?? null,
      statusCode: reply.statusCode,
      account: s?.account ?? null,
      coreRequestId: s?.coreRequestId ?? null,
      code: s?.errorCode ?? null,
      cache: s?.cache ?? null,
      source: s?.source ?? null,
      upstreamMs: s ? Math.round(s.upstreamMs) : 0,
      credits: s?.credits ?? 0,
      lookups: s?.lookups ?? 0,
      tookMs: Math.round(reply.elapsedTime),
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request');
  }
}

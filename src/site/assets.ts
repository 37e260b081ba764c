// The browser pages' static files (GraphiQL's and Swagger UI's bundles, our styles and scripts), served
// by this process from installed packages: nothing comes from a CDN, so the pages work offline. Each
// file's URL carries a hash of its content, so a browser may keep it for a year without asking again
// (`immutable`); a new version is a new URL. Compressed copies (brotli, gzip) are made once, on the
// first request that asks for them, off the event loop, and then kept.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import { negotiate } from '@fastify/accept-negotiator';
import type { FastifyInstance } from 'fastify';
import { LookupError } from '../contract/index.js';
import { sendError } from '../http/envelope.js';

export const ASSETS_PATH = '/assets';
export const IMMUTABLE = 'public, max-age=31536000, immutable';

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  ico: 'image/x-icon',
  svg: 'image/svg+xml',
};

/** Below this size a compressed copy is not worth a round of the thread pool. */
const MIN_COMPRESS_BYTES = 1024;
const ENCODINGS = ['br', 'gzip'] as const;
type Encoding = (typeof ENCODINGS)[number];

const compressors: Record<Encoding, (b: Buffer) => Promise<Buffer>> = {
  // Quality 5: about a second for GraphiQL's 5 MB on one core, within 15 % of the best ratio (quality 11 takes 20 s).
  br: (b) =>
    promisify(brotliCompress)(b, {
      params: { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_SIZE_HINT]: b.length },
    }),
  gzip: (b) => promisify(gzip)(b, { level: 6 }),
};

export interface Asset {
  /** The URL to put in a page: /assets/<name>.<hash>.<ext> */
  readonly url: string;
  readonly type: string;
  readonly body: Buffer;
  /** The hash of the content: each encoding's ETag is made from it (etagOf). */
  readonly hash: string;
  readonly compressed: Map<Encoding, Promise<Buffer>>;
}

/** The set of files the pages use, each under its content-hashed URL. */
export class AssetRegistry {
  private readonly byUrl = new Map<string, Asset>();

  /** Registers a file; its URL is `<base>.<first 12 hex of sha256>.<ext>` of `name` = `<base>.<ext>`. */
  add(name: string, content: string | Buffer): Asset {
    const dot = name.lastIndexOf('.');
    const ext = name.slice(dot + 1);
    const type = TYPES[ext];
    if (dot < 1 || type === undefined) throw new Error(`asset ${name}: unknown file type`);
    const body = typeof content === 'string' ? Buffer.from(content) : content;
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
    const url = `${ASSETS_PATH}/${name.slice(0, dot)}.${hash}.${ext}`;
    const asset: Asset = { url, type, body, hash, compressed: new Map() };
    this.byUrl.set(url, asset);
    return asset;
  }

  get(url: string): Asset | undefined {
    return this.byUrl.get(url);
  }

  /** The encoding to send for an accept-encoding header (none: the file as it is). */
  encodingFor(asset: Asset, acceptEncoding: string | undefined): Encoding | undefined {
    if (asset.body.length < MIN_COMPRESS_BYTES || !acceptEncoding) return undefined;
    return (negotiate(acceptEncoding, [...ENCODINGS]) as Encoding | null) ?? undefined;
  }

  /** The body in that encoding, and the encoding it is in (none when compressing failed: the file as it is). */
  async bodyFor(asset: Asset, encoding: Encoding | undefined): Promise<{ body: Buffer; encoding?: Encoding }> {
    if (encoding === undefined) return { body: asset.body };
    let pending = asset.compressed.get(encoding);
    if (pending === undefined) {
      pending = compressors[encoding](asset.body);
      asset.compressed.set(encoding, pending);
      // A failed compression is not kept: the next request tries again (this one gets the plain file).
      pending.catch(() => asset.compressed.delete(encoding));
    }
    try {
      return { body: await pending, encoding };
    } catch {
      return { body: asset.body };
    }
  }
}

/**
 * A strong ETag per representation: the same content compressed is other bytes, so other tags
 * (`"<hash>"`, `"<hash>-br"`, `"<hash>-gzip"`), as a cache between may keep each.
 */
export const etagOf = (asset: Asset, encoding: Encoding | undefined): string =>
  `"${asset.hash}${encoding ? `-${encoding}` : ''}"`;

/**
 * If-None-Match against an ETag: a list of tags or `*`, compared weakly as RFC 9110 asks (a proxy that
 * changed the body may have weakened our tag to W/"…").
 */
export function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return (header.match(/(?:W\/)?"[^"]*"/g) ?? []).some((tag) => opaque(tag) === opaque(etag));
}

const require = createRequire(import.meta.url);
/** A file of an installed package (resolved like an import, so it works from src/ and from dist/). */
export const packageFile = (specifier: string): Buffer => readFileSync(require.resolve(specifier));

/** GET /assets/<file>: a registered file with a year of caching, compressed when the client accepts it. */
export function assetRoutes(app: FastifyInstance, assets: () => AssetRegistry): void {
  app.get(`${ASSETS_PATH}/:file`, async (request, reply) => {
    const asset = assets().get(request.url.split('?', 1)[0]!);
    if (asset === undefined) return sendError(reply, new LookupError('route_not_found'));
    reply.header('cache-control', IMMUTABLE).header('vary', 'accept-encoding').type(asset.type);
    const wanted = assets().encodingFor(asset, request.headers['accept-encoding']);
    if (noneMatch(request.headers['if-none-match'], etagOf(asset, wanted)))
      return reply.header('etag', etagOf(asset, wanted)).code(304).send();
    const { body, encoding } = await assets().bodyFor(asset, wanted);
    if (encoding !== undefined) reply.header('content-encoding', encoding);
    return reply.header('etag', etagOf(asset, encoding)).send(body);
  });
}

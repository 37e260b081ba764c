// A cache bounded by its count of keys, least recently read going first: `lru-cache` under the name
// the parsed-document and parsed-record caches import. Byte-bounded caches (the memory store's homes)
// use LRUCache's maxSize directly.
import { LRUCache } from 'lru-cache';

export class LruMap<V extends {}> extends LRUCache<string, V> {
  constructor(max: number) {
    super({ max });
  }
}

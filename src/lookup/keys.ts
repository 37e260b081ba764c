// Which store keys a locator reads. Homes live under `zpid:<zpid>`; addresses and building links
// are aliases pointing at that entry (or hold the entry themselves when no zpid is known).
import type { Locator } from '../contract/index.js';

export const zpidKey = (zpid: string): string => `zpid:${zpid}`;
export const addressKey = (normalized: string): string => `addr:${normalized}`;
export const buildingKey = (key: string): string => `bldg:${key}`;
export const lockKey = (homeKey: string): string => `lock:${homeKey}`;
/** A home loaded with its raw record (raw=true), kept apart from the same home loaded without, within a process. */
export const rawFlightKey = (homeKey: string): string => `raw:${homeKey}`;
/** Where an incomplete read keeps the complete entry it replaced (the home's last good record, stale answers). */
export const lastGoodKey = (entryKey: string): string => `good:${entryKey}`;

/** The key a locator is known by before anything is read. */
export function homeKeyOf(locator: Locator): string {
  switch (locator.kind) {
    case 'zpid':
      return zpidKey(locator.zpid);
    case 'url':
      return locator.target === 'home' ? zpidKey(locator.zpid) : buildingKey(locator.buildingKey);
    case 'address':
      return addressKey(locator.normalized);
  }
}

/** True when the key is itself a home entry rather than an alias. */
export const isDirectKey = (key: string): boolean => key.startsWith('zpid:');

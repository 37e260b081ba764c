// Photo URLs as the site publishes them: one per photo, the widest JPEG on offer.
// Only the arrays passed in are read (a home's or a building's own), never the whole cache,
// which also holds nearby homes' photos. A map or street-view image is not a photo.
import { isObject, list, text, type Json } from './values.js';

const PHOTO_KEY = /\/fp\/([^/-]+)-/;
const isJpeg = (url: string) => /\.jpe?g(?:$|\?)/i.test(url);

/** A Google Maps satellite/road map or street-view image: what the site shows when a home has no photo. */
export const isMapImage = (url: string): boolean =>
  /^https?:\/\/maps\.googleapis\.com\/maps\/api\/(?:staticmap|streetview)\b/i.test(url);

interface Candidate {
  url: string;
  width: number;
}

function candidates(photo: Json): Candidate[] {
  const out: Candidate[] = [];
  const jpeg = isObject(photo.mixedSources) ? photo.mixedSources.jpeg : undefined;
  if (Array.isArray(jpeg)) {
    for (const s of jpeg) {
      const url = isObject(s) ? text(s.url) : null;
      if (url && isJpeg(url) && !isMapImage(url)) out.push({ url, width: typeof s.width === 'number' ? s.width : 0 });
    }
  }
  // The bare `url` is a small hero variant of unknown width: kept only when nothing wider exists.
  const url = text(photo.url);
  if (url && isJpeg(url) && !isMapImage(url)) out.push({ url, width: 0 });
  return out;
}

/**
 * The widest JPEG of each photo, in first-seen order. Arrays describing the same photos
 * (originalPhotos / responsivePhotos, or a building's galleryPhotos / signaturePhotos) are merged
 * by photo key, so each photo appears once; on equal widths the earlier array wins.
 */
export function photoUrls(owner: Json, arrayKeys: readonly string[]): string[] {
  const best = new Map<string, Candidate>();
  for (const key of arrayKeys) {
    for (const photo of list(owner, key)) {
      const found = candidates(photo);
      if (found.length === 0) continue;
      const id =
        text(photo.photoKey) ??
        text(photo.id) ??
        text(photo.key) ??
        PHOTO_KEY.exec(found[0]!.url)?.[1] ??
        found[0]!.url;
      const widest = found.reduce((a, b) => (b.width > a.width ? b : a));
      const seen = best.get(id);
      if (!seen || widest.width > seen.width) best.set(id, widest);
    }
  }
  return [...best.values()].map((c) => c.url);
}

/** Whether the arrays hold images and every one is a map or street view (a home without photos). */
export function mapImagesOnly(owner: Json, arrayKeys: readonly string[]): boolean {
  const urls: string[] = [];
  for (const key of arrayKeys) {
    for (const photo of list(owner, key)) {
      const url = text(photo.url);
      if (url) urls.push(url);
      for (const ladder of Object.values(isObject(photo.mixedSources) ? photo.mixedSources : {})) {
        if (Array.isArray(ladder))
          urls.push(...ladder.map((s) => (isObject(s) ? text(s.url) : null)).filter((u): u is string => u !== null));
      }
    }
  }
  return urls.length > 0 && urls.every(isMapImage);
}

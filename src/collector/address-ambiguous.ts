// The 409 an address lookup answers when the closest home the site names is another one (spec 7).
import { LookupError, homePathForZpid, publicLink } from '../contract/index.js';
import type { MismatchPart } from '../address/index.js';

/** The 409 for a candidate home that differs from the address asked for: it names the candidate and what differs. */
export function addressAmbiguous(
  candidate: { zpid: string; address: string | null },
  mismatch: MismatchPart[],
): LookupError {
  return new LookupError('address_ambiguous', {
    details: {
      candidate: {
        detailUrl: publicLink(homePathForZpid(candidate.zpid)),
        address: candidate.address,
        zpid: candidate.zpid,
      },
      mismatch,
    },
  });
}

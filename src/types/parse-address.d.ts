declare module 'parse-address' {
  export interface ParsedLocation {
    number?: string;
    prefix?: string;
    street?: string;
    type?: string;
    suffix?: string;
    sec_unit_type?: string;
    sec_unit_num?: string;
    city?: string;
    state?: string;
    zip?: string;
    plus4?: string;
  }
  export function parseLocation(address: string): ParsedLocation | null;
  const _default: { parseLocation: typeof parseLocation };
  export default _default;
}

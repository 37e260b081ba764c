// The first HTTP/2 frames a client sends, read off the decrypted stream: its SETTINGS (which ids, which
// values, in order), its connection WINDOW_UPDATE, any PRIORITY frames, and the priority block of its
// first HEADERS. Together with the pseudo-header order these make the "Akamai" HTTP/2 fingerprint
// (`1:65536;2:0;4:6291456;6:262144|15663105|0|m,a,s,p` for Chrome 151). Node's `session.remoteSettings`
// cannot give it: it merges what was sent with the defaults, so a setting left out and one sent at its
// default value look the same. Only impit's known gap (research §4) makes this worth reading.

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
const FRAME = { headers: 0x1, priority: 0x2, settings: 0x4, windowUpdate: 0x8 } as const;
const FLAG = { ack: 0x1, padded: 0x8, priority: 0x20 } as const;
/** Stop looking after this many bytes without a HEADERS frame (a client that is not what we think). */
const LIMIT = 64 * 1024;

export interface H2Priority {
  exclusive: boolean;
  dependsOn: number;
  /** 1–256, as the spec counts (the frame carries weight − 1). */
  weight: number;
}

export interface H2ClientPreface {
  /** SETTINGS entries of the client's first SETTINGS frame, as sent: [id, value]. */
  settings: Array<[number, number]>;
  /** The connection-level WINDOW_UPDATE increment before the first request, or null. */
  windowUpdate: number | null;
  /** PRIORITY frames before the first request. */
  priorityFrames: Array<{ stream: number } & H2Priority>;
  /** The priority block of the first HEADERS frame, or null when its PRIORITY flag is clear. */
  headersPriority: H2Priority | null;
}

/** SETTINGS in the Akamai notation: `id:value` joined by `;`, in the order sent. */
export const settingsString = (p: H2ClientPreface): string => p.settings.map(([id, v]) => `${id}:${v}`).join(';');

/** The Akamai HTTP/2 fingerprint; `pseudoOrder` like `m,a,s,p` (from the request's raw headers). */
export function akamaiFingerprint(p: H2ClientPreface, pseudoOrder: string): string {
  const priority = p.priorityFrames.length
    ? p.priorityFrames.map((f) => `${f.stream}:${f.exclusive ? 1 : 0}:${f.dependsOn}:${f.weight}`).join(',')
    : '0';
  return `${settingsString(p)}|${p.windowUpdate ?? '00'}|${priority}|${pseudoOrder}`;
}

const priorityAt = (b: Buffer, at: number): H2Priority => ({
  exclusive: (b[at]! & 0x80) !== 0,
  dependsOn: b.readUInt32BE(at) & 0x7fffffff,
  weight: b[at + 4]! + 1,
});

/**
 * Fed the decrypted bytes of an HTTP/2 connection from its start, reads frames until the first HEADERS.
 * `result` is then set; bytes after that are ignored. Passing bytes through is the caller's business.
 */
export class PrefaceSniffer {
  result: H2ClientPreface | null = null;
  private buf = Buffer.alloc(0);
  private given = false;
  private settingsSeen = false; // a first SETTINGS may be empty (Node's client sends one so)
  private readonly seen: H2ClientPreface = {
    settings: [],
    windowUpdate: null,
    priorityFrames: [],
    headersPriority: null,
  };

  feed(chunk: Buffer): void {
    if (this.result || this.given) return;
    this.buf = Buffer.concat([this.buf, chunk]);
    if (this.buf.length > LIMIT) return void (this.given = true);
    if (this.buf.length < PREFACE.length) return;
    if (!this.buf.subarray(0, PREFACE.length).equals(PREFACE)) return void (this.given = true);
    let at = PREFACE.length;
    while (at + 9 <= this.buf.length) {
      const len = this.buf.readUIntBE(at, 3);
      const type = this.buf[at + 3]!;
      const flags = this.buf[at + 4]!;
      const stream = this.buf.readUInt32BE(at + 5) & 0x7fffffff;
      if (at + 9 + len > this.buf.length) return; // frame not all here yet
      const body = this.buf.subarray(at + 9, at + 9 + len);
      if (type === FRAME.settings && !(flags & FLAG.ack) && !this.settingsSeen) {
        this.settingsSeen = true;
        for (let i = 0; i + 6 <= body.length; i += 6)
          this.seen.settings.push([body.readUInt16BE(i), body.readUInt32BE(i + 2)]);
      } else if (type === FRAME.windowUpdate && stream === 0 && this.seen.windowUpdate === null) {
        this.seen.windowUpdate = body.readUInt32BE(0) & 0x7fffffff;
      } else if (type === FRAME.priority) {
        this.seen.priorityFrames.push({ stream, ...priorityAt(body, 0) });
      } else if (type === FRAME.headers) {
        const pad = flags & FLAG.padded ? 1 : 0;
        this.seen.headersPriority = flags & FLAG.priority ? priorityAt(body, pad) : null;
        this.result = this.seen;
        this.buf = Buffer.alloc(0);
        return;
      }
      at += 9 + len;
    }
  }
}

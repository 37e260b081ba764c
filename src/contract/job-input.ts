// The readers of a lookup job's body (POST /v1/portal/jobs, GraphQL's createLookupJob): JSON like a
// batch's body, text/csv (a header row naming url, zpid and/or address columns), and NDJSON (one item
// per line). Each gives the core's JobRequest: the items as sent (the core validates each with the
// batch's parseBatchItem: a bad item is its own error result) and the options (the batch's parsers).
// A body that is no job is bad_body with a reason, more than MAX_JOB_ITEMS items too_many_items,
// before anything is queued. Decisions (docs/jobs.md): CSV cells are trimmed, columns other than
// the three locators are ignored, blank lines are skipped, a row with more cells than the header is
// refused (an unquoted comma in an address); JSON takes its options in the body only.
import { LookupError } from './errors.js';
import { LOCATOR_KEYS } from './inputs.js';
import { JOB_BODY_KEYS, JOB_OPTION_KEYS, MAX_JOB_ITEMS } from './jobs.js';
import { parseLookupOptions, parseOptionsQuery, type LookupOptions } from './validate.js';

/** A job as a client asked for it, after the face read its body (JSON, CSV or NDJSON). */
export interface JobRequest {
  /** The items as sent, in the batch's item forms (each validated when run; a bad one is its error result). */
  items: unknown[];
  webhookUrl: string | null;
  /** The job's options (max_age, status, raw), as for a batch. */
  options: LookupOptions;
}

export type JobFormat = 'json' | 'csv' | 'ndjson';

/** The media types of a job body, by the format each is read as. */
export const JOB_MEDIA_TYPES: Readonly<Record<string, JobFormat>> = {
  'application/json': 'json',
  'text/csv': 'csv',
  'application/x-ndjson': 'ndjson',
  'application/jsonl': 'ndjson',
  'application/x-jsonlines': 'ndjson',
};

const badBody = (reason: string, message = `The body is not a lookup job: ${reason}.`) =>
  new LookupError('bad_body', { message, details: { reason } });
const bad = (param: string, reason: string) =>
  new LookupError('bad_param', { message: `Invalid ${param}: ${reason}.`, details: { param, reason } });

export const tooManyJobItems = (received: number): LookupError =>
  new LookupError('too_many_items', {
    message: `At most ${MAX_JOB_ITEMS.toLocaleString('en-US')} items per job.`,
    details: { max: MAX_JOB_ITEMS, received },
  });

/**
 * The format of a body by its content-type (parameters such as charset aside); a body sent without
 * one is read as JSON, as the batch reads it. Else 415 unsupported_media_type naming the types served.
 */
export function jobFormatOf(contentType: string | undefined): JobFormat {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === '') return 'json';
  const format = JOB_MEDIA_TYPES[type];
  if (format) return format;
  throw new LookupError('unsupported_media_type', {
    message: 'Send the job as application/json, text/csv or application/x-ndjson.',
    details: { header: 'content-type', received: type, supported: Object.keys(JOB_MEDIA_TYPES) },
  });
}

/** How deep a job body may nest: `{ items: [ { url } ] }` is 3; an item is never deeper than its one object. */
export const MAX_JOB_BODY_DEPTH = 8;

/**
 * Refuses a value nested deeper than MAX_JOB_BODY_DEPTH (bad_body): JSON.parse reads a million levels, but the
 * JSON.stringify of storing the job (and of an Idempotency-Key's identity) overflows the stack on one (a 500).
 * Iterative, so the check itself cannot overflow.
 */
function checkDepth(value: unknown, where: string): void {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > MAX_JOB_BODY_DEPTH) throw badBody(`${where} nests deeper than ${MAX_JOB_BODY_DEPTH} levels`);
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
}

function checkCount(items: readonly unknown[]): void {
  if (items.length === 0) throw badBody('no items', 'A job needs at least one item.');
  if (items.length > MAX_JOB_ITEMS) throw tooManyJobItems(items.length);
}

/** webhook_url as sent: a string, or absent (the jobs core checks the URL itself: scheme, host, addresses). */
function webhookUrlOf(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw bad('webhook_url', 'must be a string');
  return value;
}

/** The job's options and webhook, as arguments under the contract's names (JSON body, GraphQL): refused as the batch refuses them. */
export function parseJobOptions(input: Record<string, unknown>): Pick<JobRequest, 'options' | 'webhookUrl'> {
  return { options: parseLookupOptions(input), webhookUrl: webhookUrlOf(input.webhook_url) };
}

/** A JSON job body, parsed or not (GraphQL's arguments under the contract's names are one too). */
export function parseJobJson(body: unknown): JobRequest {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw badBody('body must be a JSON object with an items array');
  const b = body as Record<string, unknown>;
  if (!Array.isArray(b.items)) throw badBody('items must be a non-empty array');
  checkCount(b.items);
  checkDepth(b, 'the body');
  const unknown = Object.keys(b).filter((k) => !JOB_BODY_KEYS.includes(k));
  if (unknown.length > 0) throw bad(unknown[0]!, `unknown field (expected ${JOB_BODY_KEYS.join(', ')})`);
  return { items: b.items, ...parseJobOptions(b) };
}

/** The options and webhook of a CSV or NDJSON job, from the query string; unknown or repeated parameters are refused. */
export function parseJobQuery(query: Record<string, unknown>): Pick<JobRequest, 'options' | 'webhookUrl'> {
  for (const [k, v] of Object.entries(query)) {
    if (!JOB_OPTION_KEYS.includes(k)) throw bad(k, `unknown parameter (expected ${JOB_OPTION_KEYS.join(', ')})`);
    if (Array.isArray(v)) throw bad(k, 'sent more than once');
  }
  return { options: parseOptionsQuery(query), webhookUrl: webhookUrlOf(query.webhook_url) };
}

/** The form of a job id (jobs core: `job_` and the id's letters and digits). */
const JOB_ID = /^job_[A-Za-z0-9]{1,64}$/;

/**
 * A cursor of the account's job list as sent (REST's cursor, GraphQL's after): null when absent. One not
 * of a job id's form is bad_param (the core would answer an empty page, which reads as the end of the
 * list). A well-formed id the account has not (another's, or expired since its page: the last page was
 * reached) still gives the empty page: the two cannot be told apart, and a real cursor must keep working.
 */
export function jobListCursor(cursor: string | null | undefined, param: string): string | null {
  if (cursor === undefined || cursor === null) return null;
  if (!JOB_ID.test(cursor)) throw bad(param, 'must be the cursor of an earlier page');
  return cursor;
}

/** The rows of RFC 4180 text: fields split on commas, quoted fields with "" for a quote and line breaks inside. */
export function parseCsvRows(text: string, firstLine = 1): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0; // a byte-order mark (spreadsheets write one)
  let line = firstLine;
  const endRow = () => {
    // A line with nothing on it is no row (a trailing newline, a blank line).
    if (!(row.length === 1 && row[0] === '')) rows.push(row);
    row = [];
    line++;
  };
  while (i <= text.length) {
    if (text[i] === '"') {
      const at = line;
      let value = '';
      i++;
      for (;;) {
        const close = text.indexOf('"', i);
        if (close < 0) throw badBody(`CSV: a quoted field opened on line ${at} is never closed`);
        value += text.slice(i, close);
        if (text[close + 1] === '"') {
          value += '"';
          i = close + 2;
          continue;
        }
        i = close + 1;
        break;
      }
      line += (value.match(/\n/g) ?? []).length;
      const next = text[i];
      if (next !== undefined && next !== ',' && next !== '\r' && next !== '\n')
        throw badBody(`CSV: line ${at}: text after a closing quote (a quote inside a quoted field is written "")`);
      row.push(value);
    } else {
      let end = i;
      while (end < text.length && text[end] !== ',' && text[end] !== '\n' && text[end] !== '\r') end++;
      row.push(text.slice(i, end));
      i = end;
    }
    const c = text[i];
    if (c === ',') {
      i++;
      continue;
    }
    if (c === '\r') i += text[i + 1] === '\n' ? 2 : 1;
    else i++; // \n, or past the end
    endRow();
  }
  return rows;
}

/**
 * A text/csv job: a header row naming the locator columns (url, zpid, address; any case; other columns
 * ignored), then one item per row, from its non-empty locator cell (a row with two is that item's
 * bad_param, one with none its missing_param: each row keeps its index).
 */
export function parseJobCsv(text: string): unknown[] {
  const reader = new CsvJobReader();
  reader.push(text);
  return reader.end();
}

/** An NDJSON job: one item per line (a link or address as a JSON string, or an item object); blank lines skipped. */
export function parseJobNdjson(text: string): unknown[] {
  const reader = new NdjsonJobReader();
  reader.push(text);
  return reader.end();
}

/**
 * A job body read as it arrives, a piece at a time (the REST route feeds each piece of the socket's stream):
 * NDJSON and CSV items are parsed as their lines come, so a large body is never parsed in one go on the event
 * loop, nor held whole as text. end() gives the items or throws the refusal the whole text would have met.
 */
export interface JobBodyReader {
  push(text: string): void;
  end(): unknown[];
}

/** NDJSON a line at a time; past MAX_JOB_ITEMS the non-blank lines are only counted (the refusal says how many). */
export class NdjsonJobReader implements JobBodyReader {
  #rest = '';
  #line = 0;
  #first = true;
  #items: unknown[] = [];
  #over = 0;
  #error: LookupError | null = null;

  push(text: string): void {
    if (this.#first && text !== '') {
      this.#first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const lines = (this.#rest + text).split('\n');
    this.#rest = lines.pop()!;
    for (const line of lines) this.#take(line);
  }

  #take(line: string): void {
    this.#line += 1;
    if (this.#error || line.trim() === '') return;
    if (this.#items.length === MAX_JOB_ITEMS) {
      this.#over += 1;
      return;
    }
    let item: unknown;
    try {
      item = JSON.parse(line);
    } catch {
      this.#error = badBody(`NDJSON: line ${this.#line} is not JSON`);
      return;
    }
    try {
      checkDepth(item, `NDJSON: line ${this.#line}`);
    } catch (e) {
      this.#error = e as LookupError;
      return;
    }
    this.#items.push(item);
  }

  end(): unknown[] {
    this.#take(this.#rest);
    this.#rest = '';
    if (this.#error) throw this.#error;
    if (this.#over > 0) throw tooManyJobItems(this.#items.length + this.#over);
    checkCount(this.#items);
    return this.#items;
  }
}

// Where a CSV scan stands: at a field's start, in an unquoted field, in a quoted one, just after its closing quote.
const FIELD = 0;
const UNQUOTED = 1;
const QUOTED = 2;
const CLOSED = 3;

/**
 * CSV in whole rows: each piece up to its last line break outside a quoted field (the scan follows the
 * fields as parseCsvRows reads them) is parsed as rows, the rest kept for the next piece. The
 * refusals come in the order the whole text meets them: a row that cannot be read, then the header, then the
 * count, then a row with too many cells.
 */
export class CsvJobReader implements JobBodyReader {
  #pending = '';
  #scanned = 0;
  #state = FIELD;
  #line = 1;
  #first = true;
  #header: string[] | null = null;
  #columns = new Map<number, string>();
  #rows = 0;
  #items: unknown[] = [];
  #syntax: LookupError | null = null;
  #headerError: LookupError | null = null;
  #rowError: LookupError | null = null;

  push(text: string): void {
    if (this.#syntax) return;
    if (this.#first && text !== '') {
      this.#first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    this.#pending += text;
    let cut = -1;
    let state = this.#state;
    for (let i = this.#scanned; i < this.#pending.length; i++) {
      const c = this.#pending.charCodeAt(i);
      if (state === QUOTED) {
        if (c === 34) state = CLOSED;
      } else if (c === 10) {
        cut = i;
        state = FIELD;
      } else if (c === 44 || c === 13) state = FIELD;
      else if (c === 34) state = state === FIELD || state === CLOSED ? QUOTED : UNQUOTED;
      else state = UNQUOTED;
    }
    this.#state = state;
    this.#scanned = this.#pending.length;
    if (cut < 0) return;
    const piece = this.#pending.slice(0, cut + 1);
    this.#pending = this.#pending.slice(cut + 1);
    this.#scanned = this.#pending.length;
    this.#rowsOf(piece);
  }

  #rowsOf(piece: string): void {
    let rows: string[][];
    try {
      rows = parseCsvRows(piece, this.#line);
    } catch (e) {
      this.#syntax = e as LookupError;
      return;
    }
    this.#line += (piece.match(/\n|\r(?!\n)/g) ?? []).length;
    for (const cells of rows) this.#row(cells);
  }

  #row(cells: string[]): void {
    if (!this.#header) {
      this.#header = cells;
      this.#headerOf(cells);
      return;
    }
    this.#rows += 1;
    if (this.#headerError || this.#rowError || this.#rows > MAX_JOB_ITEMS) return;
    if (cells.length > this.#header.length) {
      this.#rowError = badBody(
        `CSV: data row ${this.#rows} has ${cells.length} fields, the header ${this.#header.length} (quote a value that holds a comma)`,
      );
      return;
    }
    const item: Record<string, string> = {};
    for (const [at, key] of this.#columns) {
      const value = cells[at]?.trim();
      if (value) item[key] = value;
    }
    this.#items.push(item);
  }

  #headerOf(header: string[]): void {
    try {
      header.forEach((name, at) => {
        const key = name.trim().toLowerCase();
        if (!(LOCATOR_KEYS as readonly string[]).includes(key)) return;
        if ([...this.#columns.values()].includes(key)) throw badBody(`CSV: the header names the ${key} column twice`);
        this.#columns.set(at, key);
      });
      if (this.#columns.size === 0) {
        // Spreadsheets set to a European locale save "CSV" with semicolons: say so rather than only "no column".
        const separator = [';', '\t'].find((c) => header.some((name) => name.includes(c)));
        const hint = separator
          ? ` (the header is separated by ${separator === ';' ? 'semicolons' : 'tabs'}: send comma-separated values)`
          : '';
        throw badBody(
          `CSV: the header row names none of ${LOCATOR_KEYS.join(', ')}${hint}`,
          `A CSV job needs a header row naming a url, zpid or address column${hint}.`,
        );
      }
    } catch (e) {
      this.#headerError = e as LookupError;
    }
  }

  end(): unknown[] {
    if (!this.#syntax && this.#pending !== '') this.#rowsOf(this.#pending);
    this.#pending = '';
    if (this.#syntax) throw this.#syntax;
    if (!this.#header)
      throw badBody('CSV: no header row', 'A CSV job needs a header row naming a url, zpid or address column.');
    if (this.#headerError) throw this.#headerError;
    if (this.#rows === 0) checkCount([]);
    if (this.#rows > MAX_JOB_ITEMS) throw tooManyJobItems(this.#rows);
    if (this.#rowError) throw this.#rowError;
    return this.#items;
  }
}

/** A JSON body's text, kept as its pieces (joined once, at the end). */
class JsonTextReader {
  readonly #pieces: string[] = [];
  push(text: string): void {
    this.#pieces.push(text);
  }
  text(): string {
    return this.#pieces.join('');
  }
}

/** A job body as read by readJobBody: its format's reader, fed as the body arrives. */
export interface JobBodyParts {
  format: JobFormat;
  push(text: string): void;
  /** The job, given the query string (CSV and NDJSON take their options there); throws the body's refusal. */
  request(query: Record<string, unknown>): JobRequest;
}

/** A reader for a body of `format`, fed piece by piece; request() gives what parseJobBody gives for the whole text. */
export function jobBodyReader(format: JobFormat): JobBodyParts {
  if (format === 'json') {
    const json = new JsonTextReader();
    return { format, push: (t) => json.push(t), request: (query) => parseJobBody('json', json.text(), query) };
  }
  const reader = format === 'csv' ? new CsvJobReader() : new NdjsonJobReader();
  let empty = true;
  return {
    format,
    push(t) {
      if (empty && t.replace(/^\uFEFF/, '').trim() !== '') empty = false;
      reader.push(t);
    },
    request(query) {
      if (empty) throw badBody('body is empty');
      return { items: reader.end(), ...parseJobQuery(query) };
    },
  };
}

/** A REST job body of any format: the JSON body's own options, or the query string's for CSV and NDJSON. */
export function parseJobBody(format: JobFormat, body: string, query: Record<string, unknown>): JobRequest {
  // A byte-order mark, as Windows tools (PowerShell's utf8, Excel's "CSV UTF-8") write one: JSON.parse refuses it.
  const text = body.charCodeAt(0) === 0xfeff ? body.slice(1) : body;
  if (format === 'json') {
    const extra = Object.keys(query);
    if (extra.length > 0) throw bad(extra[0]!, 'a JSON job carries its options in the body, not the query string');
    if (text.trim() === '') throw badBody('body is empty');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw badBody('body is not valid JSON');
    }
    return parseJobJson(body);
  }
  if (text.trim() === '') throw badBody('body is empty');
  const items = format === 'csv' ? parseJobCsv(text) : parseJobNdjson(text);
  return { items, ...parseJobQuery(query) };
}

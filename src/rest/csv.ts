// CSV as the REST face writes it (a job's results, an account's charges): RFC 4180 cells, safe to open in a
// spreadsheet.

/**
 * RFC 4180: a value with a comma, quote or line break is quoted, its quotes doubled; null and absent are empty.
 * A text starting with = + - @ tab or CR gets a leading ' (OWASP's CSV injection rule): a spreadsheet would run
 * it as a formula, and listing text and echoed input are not ours to trust. Numbers (a negative longitude) stay.
 */
export function csvCell(value: unknown): string {
  if (value === undefined || value === null) return '';
  let text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

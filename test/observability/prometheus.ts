// Reads Prometheus exposition text into samples, so tests compare metric values by name and labels.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = LINE.exec(line);
    if (!m) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL)) labels[l[1]!] = l[2]!;
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

/** The value of the sample with exactly these labels; 0 when there is none (a counter never incremented). */
export function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const want = Object.entries(labels).sort();
  const found = samples.find(
    (s) => s.name === name && JSON.stringify(Object.entries(s.labels).sort()) === JSON.stringify(want),
  );
  return found?.value ?? 0;
}

/** True when the text declares the metric (a # TYPE line). */
export const declares = (text: string, name: string): boolean =>
  text.split('\n').some((l) => l.startsWith(`# TYPE ${name} `));

// Reads /metrics text with a strict parser of the Prometheus text format (0.0.4) written for the tests, independent
// of prom-client (which wrote it): a line that is not a comment, a blank or `name{labels} value` fails the test.

/** One sample: its labels and value. Histogram `_sum` and `_count` samples carry a `sample` label of that name. */
export interface Sample {
  readonly labels: Record<string, string>;
  readonly value: number;
}

/** One metric family as scraped. */
export interface Family {
  readonly name: string;
  readonly help: string;
  readonly type: string;
  readonly samples: Sample[];
}

const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/gy;

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  let consumed = 0;
  for (let match = LABEL.exec(text); match !== null; match = LABEL.exec(text)) {
    labels[match[1]!] = match[2]!.replace(/\\(.)/g, (_escape, character: string) =>
      character === 'n' ? '\n' : character,
    );
    consumed = LABEL.lastIndex;
  }
  if (consumed !== text.length) throw new Error(`malformed labels in metrics line: ${line}`);
  return labels;
}

/**
 * Parses Prometheus text format into families by name. A histogram's `_bucket` samples keep their `le` label; its
 * `_sum` and `_count` samples get a `sample: 'sum' | 'count'` label.
 *
 * @example
 * ```ts
 * const families = parseMetrics(await (await fetch(url)).text());
 * sampleValue(families, 'acpremote_connections_open');
 * ```
 */
export function parseMetrics(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const family = (name: string) => {
    let found = families.get(name);
    if (found === undefined) {
      found = { name, help: '', type: 'untyped', samples: [] };
      families.set(name, found);
    }
    return found;
  };
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const comment = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (comment) {
      const [, keyword, name, rest] = comment;
      Object.assign(family(name!), keyword === 'HELP' ? { help: rest } : { type: rest });
      continue;
    }
    const sample = SAMPLE_LINE.exec(line);
    if (!sample) throw new Error(`not a Prometheus metrics line: ${line}`);
    const [, sampleName, labelText, valueText] = sample;
    const value = valueText === '+Inf' ? Number.POSITIVE_INFINITY : Number(valueText);
    if (Number.isNaN(value)) throw new Error(`not a number in metrics line: ${line}`);
    const labels = labelText ? parseLabels(labelText, line) : {};
    const histogram = /^(.*)_(bucket|sum|count)$/.exec(sampleName!);
    if (histogram && families.get(histogram[1]!)?.type === 'histogram') {
      const part = histogram[2]!;
      family(histogram[1]!).samples.push({
        labels: part === 'bucket' ? labels : { ...labels, sample: part },
        value,
      });
    } else {
      family(sampleName!).samples.push({ labels, value });
    }
  }
  return families;
}

/** The value of the first sample of `name` whose labels include `labels` (0 when none has them). */
export function sampleValue(
  families: Map<string, Family>,
  name: string,
  labels: Record<string, string> = {},
): number {
  const found = families.get(name);
  if (found === undefined) throw new Error(`no metric ${name} in the scrape`);
  const sample = found.samples.find((candidate) =>
    Object.entries(labels).every(([key, value]) => candidate.labels[key] === value),
  );
  return sample?.value ?? 0;
}

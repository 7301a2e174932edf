/** One place where two JSON documents differ. */
export interface JsonDifference {
  /** `a.b[2].c`, the way the compatibility tables name fields. */
  readonly path: string;
  /** `only-typescript`: a key or item only our side sends; `only-python`: only Python's; `changed`: both, unequal. */
  readonly kind: 'only-typescript' | 'only-python' | 'changed';
  readonly typescript?: unknown;
  readonly python?: unknown;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function join(path: string, key: string | number): string {
  return typeof key === 'number' ? `${path}[${key}]` : path === '' ? key : `${path}.${key}`;
}

/** Every difference between two JSON values (key order is irrelevant; array items compare by position). */
export function jsonDifferences(typescript: unknown, python: unknown, path = ''): JsonDifference[] {
  if (Array.isArray(typescript) && Array.isArray(python)) {
    const differences: JsonDifference[] = [];
    for (let index = 0; index < Math.max(typescript.length, python.length); index += 1) {
      if (index >= python.length) {
        differences.push({ path: join(path, index), kind: 'only-typescript', typescript: typescript[index] });
      } else if (index >= typescript.length) {
        differences.push({ path: join(path, index), kind: 'only-python', python: python[index] });
      } else differences.push(...jsonDifferences(typescript[index], python[index], join(path, index)));
    }
    return differences;
  }
  if (isObject(typescript) && isObject(python)) {
    const differences: JsonDifference[] = [];
    for (const key of new Set([...Object.keys(typescript), ...Object.keys(python)])) {
      if (!(key in python)) {
        differences.push({ path: join(path, key), kind: 'only-typescript', typescript: typescript[key] });
      } else if (!(key in typescript)) {
        differences.push({ path: join(path, key), kind: 'only-python', python: python[key] });
      } else differences.push(...jsonDifferences(typescript[key], python[key], join(path, key)));
    }
    return differences;
  }
  return Object.is(typescript, python) ? [] : [{ path, kind: 'changed', typescript, python }];
}

/** `a[3].b` → `a[*].b`: the form the tables use for "every item". */
export function wildcardPath(path: string): string {
  return path.replace(/\[\d+\]/g, '[*]');
}

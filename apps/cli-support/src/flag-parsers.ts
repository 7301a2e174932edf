import { InvalidArgumentError } from 'commander';

/**
 * Commander argument parser for `--port`: an integer from 0 to 65535 (0 asks the OS for any free port).
 *
 * @throws InvalidArgumentError (commander reports it as a usage error, exit code 2).
 * @example
 * ```ts
 * new Option('--port <port>').argParser(parsePort);
 * ```
 */
export function parsePort(value: string): number {
  const port = parseStrictInteger(value);
  if (port === undefined || port < 0 || port > 65_535) {
    throw new InvalidArgumentError('Expected an integer from 0 to 65535.');
  }
  return port;
}

/**
 * Commander argument parser for counts and byte sizes: a positive integer.
 *
 * @throws InvalidArgumentError (commander reports it as a usage error, exit code 2).
 * @example
 * ```ts
 * new Option('--max-connections <count>').argParser(parsePositiveInteger);
 * ```
 */
export function parsePositiveInteger(value: string): number {
  const parsed = parseStrictInteger(value);
  if (parsed === undefined || parsed < 1) throw new InvalidArgumentError('Expected a positive integer.');
  return parsed;
}

/**
 * Commander argument parser for counts where 0 means "none": a non-negative integer.
 *
 * @throws InvalidArgumentError (commander reports it as a usage error, exit code 2).
 * @example
 * ```ts
 * new Option('--max-detached-sessions <count>').argParser(parseNonNegativeInteger);
 * ```
 */
export function parseNonNegativeInteger(value: string): number {
  const parsed = parseStrictInteger(value);
  if (parsed === undefined) throw new InvalidArgumentError('Expected an integer, 0 or more.');
  return parsed;
}

/**
 * Commander argument parser for a duration in seconds: a positive finite number (fractions allowed).
 *
 * @returns The duration in milliseconds.
 * @throws InvalidArgumentError (commander reports it as a usage error, exit code 2).
 * @example
 * ```ts
 * parseSecondsToMilliseconds('2.5'); // 2500
 * ```
 */
export function parseSecondsToMilliseconds(value: string): number {
  const milliseconds = parseSeconds(value);
  if (milliseconds === undefined || milliseconds <= 0) {
    throw new InvalidArgumentError('Expected a positive number of seconds.');
  }
  return milliseconds;
}

/**
 * Commander argument parser for a duration in seconds that may be 0 (often "off" or "at once"): a non-negative
 * finite number (fractions allowed).
 *
 * @returns The duration in milliseconds.
 * @throws InvalidArgumentError (commander reports it as a usage error, exit code 2).
 * @example
 * ```ts
 * parseNonNegativeSecondsToMilliseconds('0'); // 0
 * ```
 */
export function parseNonNegativeSecondsToMilliseconds(value: string): number {
  const milliseconds = parseSeconds(value);
  if (milliseconds === undefined) throw new InvalidArgumentError('Expected a number of seconds (0 or more).');
  return milliseconds;
}

/** Plain decimal seconds (`2`, `2.5`, `.5`) in milliseconds; undefined for anything else (`1e3`, `-1`, `''`). */
function parseSeconds(value: string): number | undefined {
  const trimmed = value.trim();
  const seconds = /^\d+(\.\d+)?$|^\.\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
  return Number.isFinite(seconds) ? Math.round(seconds * 1000) : undefined;
}

/**
 * Commander argument parser that collects a repeatable flag into an array.
 *
 * @example
 * ```ts
 * new Option('--allowed-origin <origin>').argParser(collectRepeatable).default([]);
 * ```
 */
export function collectRepeatable(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function parseStrictInteger(value: string): number | undefined {
  const trimmed = value.trim();
  // Number('') is 0 and Number('1e3') is 1000; accept plain decimal digits only.
  if (!/^\d+$/.test(trimmed)) return undefined;
  const parsed = Number(trimmed);
  return Number.isSafeInteger(parsed) ? parsed : undefined;
}

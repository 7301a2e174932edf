// The docs' lists of refusal reasons are the declared ones: docs/remote-transport.md's table of the label values each
// series has from the start (which tests/docs holds against a real scrape) names exactly the declared reasons.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REFUSAL_REASONS, refusalReasons } from './refusal-reasons.js';

const page = readFileSync(new URL('../../../../docs/remote-transport.md', import.meta.url), 'utf8');

/** The "Label values present from the start" cell of `series`. */
function labelValues(series: string): string {
  const row = page
    .split('\n')
    .find((line) => line.startsWith(`| \`${series}\``) && !line.includes('| counter'));
  return row?.split('|')[2] ?? '';
}

const words = (text: string) => [...text.matchAll(/`([a-z_]+)`/g)].map((match) => match[1]!);

describe('refusal reasons', () => {
  it('are the label values the docs list for each series', () => {
    const connections = labelValues('acpremote_connections_total');
    const [webSocket = '', streamableHttp = ''] = connections.split('(with');
    expect(words(webSocket)).toEqual(['outcome', 'accepted', ...refusalReasons('webSocket')]);
    expect(words(streamableHttp.split(' with `streamable_http`')[0]!.split(';')[1] ?? '')).toEqual([
      'accepted',
      ...refusalReasons('streamableHttp'),
    ]);
    expect(words(labelValues('acpremote_http_requests_refused_total'))).toEqual([
      'reason',
      ...refusalReasons('request'),
    ]);
  });

  it('are each counted somewhere', () => {
    for (const [reason, counting] of Object.entries(REFUSAL_REASONS))
      expect(Object.keys(counting).length, reason).toBeGreaterThan(0);
  });
});

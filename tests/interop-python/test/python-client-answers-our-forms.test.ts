// askForm, askChoices and askConfirm have no counterpart in the Python ACP Kit, but they are plain ACP forms: a
// client written on the Python ACP SDK (python/forms_client.py, the `agent-client-protocol` the Python kit pins)
// parses each one with Python's own models and answers it, and our release-form example agent gets typed values back.
import { afterAll, describe, expect, it } from 'vitest';
import { reapAll, spawnProcess } from '../../e2e/support/processes.js';
import { interopPaths, python } from '../src/paths.js';
import { failEveryTestWithoutPythonVenv } from './support/venv.js';

failEveryTestWithoutPythonVenv();

afterAll(async () => {
  await reapAll();
});

interface PythonClientRun {
  readonly forms: ReadonlyArray<{
    readonly message: string;
    readonly requestedSchema: {
      readonly required?: readonly string[];
      readonly properties: Record<string, { readonly type: string; readonly default?: unknown }>;
    };
    readonly content: Record<string, unknown>;
  }>;
  readonly text: string;
  readonly stopReason: string;
}

describe('a client on the Python ACP SDK answers our typed forms', () => {
  it('parses askForm (with a choiceField), askChoices and askConfirm, and the agent gets its typed values', async () => {
    const client = spawnProcess(
      python.interpreter,
      [interopPaths.pythonFormsClient, 'release', process.execPath, interopPaths.releaseFormAgent],
      { env: { PYTHONDONTWRITEBYTECODE: '1' } },
    );
    client.child.stdin?.end();
    const exit = await client.closed;
    expect(exit.code, client.stderr()).toBe(0);
    const run = JSON.parse(client.stdout()) as PythonClientRun;

    expect(run.forms.map((form) => form.message)).toEqual([
      'Plan the release',
      'Which packages should be published?',
      'Publish 1.5.0 of 1 package(s) under the npm tag latest to 10% of users?',
    ]);
    const [release, packages, confirm] = run.forms;
    // Every field kind survived Python's parsing: text (pattern, lengths, format), single-select, integer, boolean,
    // multi-select.
    expect(
      Object.entries(release?.requestedSchema.properties ?? {}).map(([name, field]) => [name, field.type]),
    ).toEqual([
      ['version', 'string'],
      ['notes', 'string'],
      ['date', 'string'],
      ['channel', 'string'],
      ['rollout', 'integer'],
      ['notify', 'boolean'],
    ]);
    expect(packages?.requestedSchema.properties.value).toMatchObject({
      type: 'array',
      default: ['choice_0'],
    });
    expect(confirm?.requestedSchema.properties.value).toMatchObject({ type: 'boolean', default: false });
    expect(confirm?.content).toEqual({ value: false });

    // Our agent parsed Python's answers with the same zod schemas and got the offered values back.
    expect(run.text).toContain(
      `Release plan: ${JSON.stringify({
        version: '1.5.0',
        channel: { name: 'stable', npmTag: 'latest' },
        rollout: 10,
        notify: true,
        packages: [{ name: '@acpkit/elicitation', directory: 'packages/elicitation' }],
      })}`,
    );
    expect(run.text).toContain('Not published: the release was not confirmed.');
    expect(run.stopReason).toBe('end_turn');
  });
});

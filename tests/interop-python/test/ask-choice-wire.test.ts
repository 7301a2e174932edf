// Wire equality of forms: the real Python `ask_choice` (pydantic-acp 1.10, run by python/choice_agent.py) and our
// `askChoice` (fixtures/ts-choice-agent.mjs, built @acpkit/elicitation) get the same choice sets over real stdio
// connections; a raw JSON-RPC client captures each `elicitation/create` exactly as sent and accepts one token. The
// two forms must be equal as JSON except for the differences docs/typed-elicitation.md lists, both agents must get
// the offered value back, and Python's forms must still be the committed vectors.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topLevelPins } from '../../../scripts/python-venv.mjs';
import { reapAll } from '../../e2e/support/processes.js';
import {
  type CapturedForm,
  captureForms,
  installedPythonVersions,
  type PythonVectors,
  readPythonVectors,
} from '../src/captures.js';
import { startChoiceAgent } from '../src/choice-agents.js';
import { formCases, tokenToAccept } from '../src/choice-cases.js';
import { codeSpans, readMarkedTable } from '../src/compatibility-tables.js';
import { type JsonDifference, jsonDifferences, wildcardPath } from '../src/json-diff.js';
import { interopPaths } from '../src/paths.js';
import { failEveryTestWithoutPythonVenv } from './support/venv.js';

const pythonReady = failEveryTestWithoutPythonVenv();

const DESCRIPTION_META_KEY = 'acpkit.dev/choice-description';
const caseNames = Object.keys(formCases);

interface DocumentedDifference {
  readonly kind: JsonDifference['kind'];
  /** Our value, when the table's TypeScript cell is a single JSON code span. */
  readonly typescriptValue?: unknown;
}

/** The wire-difference table of docs/typed-elicitation.md, by (wildcard) JSON path. */
function documentedDifferences(): Map<string, DocumentedDifference> {
  const rows = readMarkedTable(interopPaths.typedElicitationDocs, 'ask-choice-wire-differences');
  const differences = new Map<string, DocumentedDifference>();
  for (const [pathCell = '', pythonCell = '', typescriptCell = ''] of rows) {
    const [path] = codeSpans(pathCell);
    if (path === undefined) throw new Error(`a wire-difference row names no path: ${pathCell}`);
    const kind =
      pythonCell === 'absent' ? 'only-typescript' : typescriptCell === 'absent' ? 'only-python' : 'changed';
    // A cell that is exactly one code span holding JSON is our exact value; prose only fixes the kind.
    const [onlySpan] = codeSpans(typescriptCell);
    let typescriptValue: unknown;
    if (onlySpan !== undefined && typescriptCell === `\`${onlySpan}\``)
      typescriptValue = JSON.parse(onlySpan);
    differences.set(path, typescriptValue === undefined ? { kind } : { kind, typescriptValue });
  }
  return differences;
}

let python: Record<string, CapturedForm>;
let typescript: Record<string, CapturedForm>;
let vectors: PythonVectors;

beforeAll(async () => {
  if (!pythonReady) return;
  vectors = readPythonVectors();
  const agents = await Promise.all([startChoiceAgent('python'), startChoiceAgent('typescript')]);
  try {
    [python, typescript] = (await Promise.all(agents.map((agent) => captureForms(agent.session)))) as [
      Record<string, CapturedForm>,
      Record<string, CapturedForm>,
    ];
  } finally {
    for (const agent of agents) expect(await agent.close()).toEqual({ code: 0, signal: null });
  }
});

afterAll(async () => {
  await reapAll();
});

describe('the real Python ask_choice', () => {
  it('is the pinned release the committed vectors were captured from', () => {
    const installed = installedPythonVersions();
    expect(installed).toEqual(vectors.python);
    // Every recorded distribution that requirements.in pins is installed at its pin (uvicorn, pinned for the
    // RFD-transport tests, is not recorded: scripts/python-venv.mjs checks every pin when it builds the venv).
    const pins = topLevelPins();
    for (const [name, version] of Object.entries(installed))
      if (name in pins) expect(version).toBe(pins[name]);
  });

  it('covers at least 20 choice sets, including 1 and 50 choices', () => {
    expect(caseNames.length).toBeGreaterThanOrEqual(20);
    const sizes = Object.values(formCases).map((choiceCase) => choiceCase.choices.length);
    expect(sizes).toContain(1);
    expect(sizes).toContain(50);
    expect(Object.keys(vectors.forms).sort()).toEqual([...caseNames].sort());
    // The compatibility section says how many choice sets it was measured over.
    const claimed = /over (\d+) choice sets/.exec(
      readFileSync(interopPaths.typedElicitationDocs, 'utf8'),
    )?.[1];
    expect(Number(claimed)).toBe(caseNames.length);
  });

  it.each(caseNames)('still sends the committed form for %s', (name) => {
    expect(python[name]).toEqual(vectors.forms[name]);
  });
});

describe('askChoice', () => {
  it.each(caseNames)(
    'sends the Python form for %s except for the documented differences, and both get the offered value',
    (name) => {
      const choiceCase = formCases[name] as (typeof formCases)[string];
      const ours = typescript[name] as CapturedForm;
      const theirs = python[name] as CapturedForm;
      const expectedValue = choiceCase.choices[tokenToAccept(choiceCase).index]?.value;
      expect(theirs.outcome).toEqual({ outcome: 'accepted', value: expectedValue });
      expect(ours.outcome).toEqual({ outcome: 'accepted', value: expectedValue });

      const documented = documentedDifferences();
      for (const difference of jsonDifferences(ours.params, theirs.params)) {
        const path = wildcardPath(difference.path);
        const listed = documented.get(path);
        expect(listed, `undocumented wire difference: ${JSON.stringify(difference)}`).toBeDefined();
        expect(difference.kind).toBe(listed?.kind);
        if (listed?.typescriptValue !== undefined)
          expect(difference.typescript).toEqual(listed.typescriptValue);
      }
      // The standard description we add always repeats what both sides send under _meta.
      const options = (ours.params as { requestedSchema: { properties: { choice: { oneOf: unknown[] } } } })
        .requestedSchema.properties.choice.oneOf as Array<{
        description?: string;
        _meta?: Record<string, string>;
      }>;
      for (const option of options) {
        if ('description' in option) expect(option.description).toBe(option._meta?.[DESCRIPTION_META_KEY]);
      }
    },
  );

  it('shows every difference the compatibility table lists (the table has no stale rows)', () => {
    const observedPaths = new Set<string>();
    for (const name of caseNames) {
      const differences = jsonDifferences(typescript[name]?.params, python[name]?.params);
      for (const difference of differences) observedPaths.add(wildcardPath(difference.path));
    }
    expect([...observedPaths].sort()).toEqual([...documentedDifferences().keys()].sort());
  });
});

// docs/typed-elicitation.md shows the exact elicitation/create params askChoice sends for the deploy-target
// question; the built compiler must produce exactly that document.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileChoiceElicitation } from '@acpkit/choice-schema';
import { describe, expect, it } from 'vitest';
import { extractFencedCode } from '../src/code-blocks.js';

const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
const page = readFileSync(join(repositoryRoot, 'docs/typed-elicitation.md'), 'utf8');

describe('docs/typed-elicitation.md wire example', () => {
  it('is what compileChoiceElicitation produces for the deploy-target question, key order included', () => {
    const documented = extractFencedCode(page, 'json').find((block) => block.includes('"requestedSchema"'));
    expect(documented, 'no ```json block with the requestedSchema').toBeDefined();
    const compiled = compileChoiceElicitation({
      sessionId: '…',
      question: 'Choose a deployment target',
      choices: [
        { label: 'Preview' },
        { label: 'Production', description: 'Deploy to the production environment.', default: true },
      ],
    });
    expect(JSON.parse(documented ?? '')).toEqual(compiled);
    expect(JSON.stringify(JSON.parse(documented ?? ''))).toBe(JSON.stringify(compiled));
  });
});

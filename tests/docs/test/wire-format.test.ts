// docs/typed-elicitation.md shows the exact elicitation/create params askChoice sends for the deploy-target
// question and askForm sends for the release form; the built compilers must produce exactly those documents.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileChoiceElicitation } from '@acpkit/choice-schema';
import { choiceField, compileFormElicitation } from '@acpkit/form-schema';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
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

describe('docs/typed-elicitation.md form wire example', () => {
  it('is what compileFormElicitation produces for the release form shown above it, key order included', () => {
    const documented = extractFencedCode(page, 'json').find((block) => block.includes('"Plan the release"'));
    expect(documented, 'no ```json block with the release form').toBeDefined();
    // The schema of the "Typed forms" example, as the page declares it.
    const channels = [
      { value: { name: 'stable', npmTag: 'latest' }, label: 'Stable', default: true },
      {
        value: { name: 'preview', npmTag: 'next' },
        label: 'Preview',
        description: 'Published under the next tag.',
      },
    ] as const;
    const release = z
      .object({
        version: z
          .string()
          .regex(/^\d+\.\d+\.\d+$/)
          .refine((version) => version !== '1.4.0', { message: 'That version is already out' })
          .meta({ title: 'Version' }),
        notes: z.string().max(200).optional().meta({ title: 'Release notes' }),
        channel: choiceField(channels).meta({ title: 'Channel' }),
        rollout: z.int().min(1).max(100).default(10).meta({ title: 'Rollout percentage' }),
        notify: z.boolean().default(true).meta({ title: 'Notify the team' }),
      })
      .meta({ title: 'Release details' });
    const compiled = compileFormElicitation({ sessionId: '…', message: 'Plan the release', schema: release });
    expect(JSON.parse(documented ?? '')).toEqual(compiled);
    expect(JSON.stringify(JSON.parse(documented ?? ''))).toBe(JSON.stringify(compiled));
  });
});

import { CHOICE_DESCRIPTION_META_KEY } from '@acpkit/choice-schema';
import { describe, expect, it } from 'vitest';
import { fieldDefault, isSingleChoiceForm, readForm } from './form-model.js';

describe('readForm', () => {
  it('reads a oneOf choice with titles, the standard description and the acpkit _meta description', () => {
    const model = readForm({
      type: 'object',
      required: ['target'],
      properties: {
        target: {
          type: 'string',
          title: 'Target',
          default: 'production',
          oneOf: [
            { const: 'preview', title: 'Preview', _meta: { [CHOICE_DESCRIPTION_META_KEY]: 'From meta.' } },
            {
              const: 'production',
              title: 'Production',
              description: 'Standard.',
              _meta: { [CHOICE_DESCRIPTION_META_KEY]: 'Ignored: the standard one wins.' },
            },
          ],
        },
      },
    });
    expect(model.fields).toEqual([
      {
        kind: 'single-choice',
        name: 'target',
        label: 'Target',
        required: true,
        defaultValue: 'production',
        options: [
          { value: 'preview', label: 'Preview', description: 'From meta.' },
          { value: 'production', label: 'Production', description: 'Standard.' },
        ],
      },
    ]);
    expect(isSingleChoiceForm(model)).toBe(true);
  });

  it('reads a plain enum and ignores a default that is not one of the options', () => {
    const [field] = readForm({
      properties: { size: { type: 'string', enum: ['s', 'm'], default: 'xl' } },
    }).fields;
    expect(field).toEqual({
      kind: 'single-choice',
      name: 'size',
      label: 'size',
      required: false,
      options: [
        { value: 's', label: 's' },
        { value: 'm', label: 'm' },
      ],
    });
  });

  it('reads every field kind in schema order with its constraints', () => {
    const model = readForm({
      type: 'object',
      title: 'Release',
      description: 'About the release',
      required: ['name', 'tags'],
      properties: {
        name: {
          type: 'string',
          minLength: 3,
          maxLength: 9,
          pattern: '^[a-z]+$',
          format: 'email',
          default: 'abc',
        },
        count: { type: 'integer', minimum: 1, maximum: 5, default: 2 },
        ratio: { type: 'number', minimum: 0 },
        notify: { type: 'boolean', default: true },
        tags: {
          type: 'array',
          minItems: 1,
          maxItems: 2,
          items: { enum: ['a', 'b', 'c'] },
          default: ['a', 'zzz'],
        },
        widget: { type: '_vendor_widget' },
      },
    });
    expect(model.title).toBe('Release');
    expect(model.description).toBe('About the release');
    expect(model.fields.map((field) => field.kind)).toEqual([
      'text',
      'number',
      'number',
      'boolean',
      'multi-choice',
      'unsupported',
    ]);
    expect(model.fields[0]).toMatchObject({
      minLength: 3,
      maxLength: 9,
      pattern: '^[a-z]+$',
      format: 'email',
    });
    expect(model.fields[1]).toMatchObject({ integer: true, minimum: 1, maximum: 5, defaultValue: 2 });
    expect(model.fields[2]).toMatchObject({ integer: false, minimum: 0 });
    expect(model.fields[3]).toMatchObject({ defaultValue: true });
    // Unknown default entries are dropped rather than sent back.
    expect(model.fields[4]).toMatchObject({ required: true, minItems: 1, maxItems: 2, defaultValue: ['a'] });
    expect(model.fields[5]).toMatchObject({ type: '_vendor_widget', required: false });
    expect(isSingleChoiceForm(model)).toBe(false);
  });

  it('reads anyOf multi-select items', () => {
    const [field] = readForm({
      properties: {
        tags: { type: 'array', items: { anyOf: [{ const: 'x', title: 'Ex', description: 'd' }] } },
      },
    }).fields;
    expect(field).toMatchObject({
      kind: 'multi-choice',
      options: [{ value: 'x', label: 'Ex', description: 'd' }],
    });
  });

  it('never throws on malformed schemas', () => {
    expect(readForm(undefined).fields).toEqual([]);
    expect(readForm({ properties: null } as never).fields).toEqual([]);
    const model = readForm({ properties: { broken: 'nope', list: { type: 'array' } } } as never);
    expect(model.fields.map((field) => [field.name, field.kind])).toEqual([
      ['broken', 'unsupported'],
      ['list', 'unsupported'],
    ]);
  });
});

describe('fieldDefault', () => {
  it('gives each kind its default, a list as a copy, and undefined where there is none', () => {
    const { fields } = readForm({
      type: 'object',
      properties: {
        text: { type: 'string', default: '' },
        count: { type: 'integer', default: 0 },
        flag: { type: 'boolean', default: false },
        pick: { type: 'string', oneOf: [{ const: 't0', title: 'A' }], default: 't0' },
        picks: { type: 'array', items: { anyOf: [{ const: 't0', title: 'A' }] }, default: ['t0'] },
        bare: { type: 'string' },
        odd: { type: 'object' } as never,
      },
    });
    expect(fields.map(fieldDefault)).toEqual(['', 0, false, 't0', ['t0'], undefined, undefined]);
    const picks = fields[4];
    const copy = fieldDefault(picks as NonNullable<typeof picks>);
    expect(copy).not.toBe((picks as { defaultValue?: readonly string[] }).defaultValue);
  });
});

// Every compiled form is sent to a real SDK 2.4 client app whose typed `elicitation/create` handler validates the
// params with the SDK's own zod schema (an invalid form would be answered -32602). The handler then returns what
// the SDK parsed, and the test requires it to equal what was sent: the SDK's parser strips unknown keys and fills
// in defaults, so equality proves every key is one the SDK knows, with a value it accepts unchanged.
import * as sdk from '@agentclientprotocol/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  choiceField,
  choicesField,
  compileFormElicitation,
  type FormElicitationParams,
} from '../src/index.js';
import { FIELD_CASES, formOfAllCases } from './support/form-cases.js';

let connection: sdk.AgentConnection;
const parsedBySdk: unknown[] = [];

beforeAll(() => {
  const client = sdk
    .client({ name: 'wire-check-client' })
    .onRequest(sdk.methods.client.elicitation.create, ({ params }) => {
      parsedBySdk.push(params);
      return { action: 'decline' };
    });
  connection = sdk.agent({ name: 'wire-check-agent' }).connect(client);
});

afterAll(() => {
  connection.close();
});

/** Sends the params and returns them as the SDK client's typed handler received them. */
async function throughSdk(params: FormElicitationParams): Promise<unknown> {
  const before = parsedBySdk.length;
  const response = await connection.client.request(sdk.methods.client.elicitation.create, params);
  expect(response).toEqual({ action: 'decline' });
  expect(parsedBySdk).toHaveLength(before + 1);
  return parsedBySdk[before];
}

describe('compiled forms against the SDK 2.4 elicitation/create schema', () => {
  it('notices a key the SDK does not know (self-check of the method)', async () => {
    const params = compileFormElicitation({
      sessionId: 's',
      message: 'Q',
      schema: z.object({ a: z.string() }),
    });
    const tampered = {
      ...params,
      requestedSchema: { ...params.requestedSchema, properties: { a: { type: 'string', minLenght: 3 } } },
    } as unknown as FormElicitationParams;
    expect(await throughSdk(tampered)).not.toEqual(tampered);
  });

  it('rejects a form the SDK finds invalid (self-check of the method)', async () => {
    const params = compileFormElicitation({
      sessionId: 's',
      message: 'Q',
      schema: z.object({ a: z.string() }),
    });
    const invalid = {
      ...params,
      requestedSchema: { ...params.requestedSchema, properties: { a: { type: 'string', format: 'color' } } },
    } as unknown as FormElicitationParams;
    await expect(
      connection.client.request(sdk.methods.client.elicitation.create, invalid),
    ).rejects.toMatchObject({
      code: -32602,
    });
  });

  it.each(FIELD_CASES.map((fieldCase) => [fieldCase.name, fieldCase] as const))(
    'accepts %s unchanged',
    async (_name, fieldCase) => {
      const params = compileFormElicitation({
        sessionId: 'session-1',
        toolCallId: 'call-1',
        message: 'One field',
        schema: z
          .object({ field: fieldCase.field })
          .meta({ title: 'Form', description: 'One field.' }) as never,
      });
      expect(await throughSdk(params)).toEqual(params);
    },
  );

  it('accepts the form of every case together, and the helpers forms', async () => {
    const forms = [
      formOfAllCases(),
      z.object({ value: z.boolean().default(false).meta({ title: 'Confirm' }) }),
      z.object({ value: choicesField([{ value: 1, label: 'One', description: '' }], { maxItems: 1 }) }),
      z.object({ value: choiceField([{ value: null, label: 'Nothing', default: true }]).optional() }),
    ];
    for (const schema of forms) {
      const params = compileFormElicitation({
        sessionId: 's',
        message: 'Everything',
        schema: schema as never,
      });
      expect(await throughSdk(params)).toEqual(params);
    }
  });
});

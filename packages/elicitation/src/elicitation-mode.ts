import type {
  BooleanPropertySchema,
  IntegerPropertySchema,
  MultiSelectPropertySchema,
  NumberPropertySchema,
  RequestId,
  StringPropertySchema,
} from '@agentclientprotocol/sdk';

type Meta = { [key: string]: unknown } | null;

/**
 * One property of a hand-written form for `AcpSessionContext.createElicitation`: the SDK's typed property
 * schemas (string, number, integer, boolean, multi-select), plus a vendor property type starting with `_`. Unlike
 * the SDK's open union, a known `type` must carry that type's keys (`{ type: 'integer', default: 'ten' }` is a
 * type error).
 *
 * @example
 * ```ts
 * import type { ElicitationFormProperty } from '@acpkit/elicitation';
 *
 * const replicas: ElicitationFormProperty = { type: 'integer', title: 'Replicas', minimum: 1, default: 2 };
 * ```
 */
export type ElicitationFormProperty =
  | (StringPropertySchema & { type: 'string' })
  | (NumberPropertySchema & { type: 'number' })
  | (IntegerPropertySchema & { type: 'integer' })
  | (BooleanPropertySchema & { type: 'boolean' })
  | (MultiSelectPropertySchema & { type: 'array' })
  | { type: `_${string}`; [key: string]: unknown };

/**
 * A hand-written form-mode `requestedSchema`: the SDK's `ElicitationSchema` with `properties` required and
 * `required` typed to the property names (a misspelt name is a type error).
 *
 * @example
 * ```ts
 * import type { ElicitationFormSchema } from '@acpkit/elicitation';
 *
 * const schema: ElicitationFormSchema<{ tag: { type: 'string' } }> = {
 *   type: 'object',
 *   required: ['tag'],
 *   properties: { tag: { type: 'string' } },
 * };
 * ```
 */
export interface ElicitationFormSchema<
  Properties extends { [name: string]: ElicitationFormProperty } = {
    [name: string]: ElicitationFormProperty;
  },
> {
  type?: 'object';
  title?: string | null;
  description?: string | null;
  properties: Properties;
  required?: readonly NoInfer<keyof Properties & string>[] | null;
  _meta?: Meta;
}

/**
 * Where an elicitation belongs: this session (the default; `sessionId` is filled in and, when given, must be this
 * session's), optionally a tool call, or a JSON-RPC request outside any session.
 *
 * @example
 * ```ts
 * import type { ElicitationScope } from '@acpkit/elicitation';
 *
 * const scopes: ElicitationScope[] = [{}, { toolCallId: 'call-1' }, { requestId: 7 }];
 * ```
 */
export type ElicitationScope =
  | { sessionId?: string; toolCallId?: string | null }
  | { requestId: RequestId; sessionId?: never; toolCallId?: never };

/**
 * A form for `AcpSessionContext.createElicitation`.
 *
 * @example
 * ```ts
 * import type { FormElicitationMode } from '@acpkit/elicitation';
 *
 * const mode: FormElicitationMode = { mode: 'form', requestedSchema: { properties: { note: { type: 'string' } } } };
 * ```
 */
export type FormElicitationMode<
  Properties extends { [name: string]: ElicitationFormProperty } = {
    [name: string]: ElicitationFormProperty;
  },
> = { mode: 'form'; requestedSchema: ElicitationFormSchema<Properties>; _meta?: Meta } & ElicitationScope;

/**
 * A URL for `AcpSessionContext.createElicitation`: the client shows it and asks consent to open it.
 *
 * @example
 * ```ts
 * import type { UrlElicitationMode } from '@acpkit/elicitation';
 *
 * const mode: UrlElicitationMode = { mode: 'url', elicitationId: 'login-1', url: 'https://example.com/login' };
 * ```
 */
export type UrlElicitationMode = {
  mode: 'url';
  elicitationId: string;
  url: string;
  _meta?: Meta;
} & ElicitationScope;

/**
 * An elicitation mode for `AcpSessionContext.createElicitation`: the request params without `message`, and
 * without `sessionId`, which the session fills in.
 *
 * @example
 * ```ts
 * import type { ElicitationMode } from '@acpkit/elicitation';
 *
 * const mode: ElicitationMode = { mode: 'url', elicitationId: 'e1', url: 'https://example.com' };
 * ```
 */
export type ElicitationMode<
  Properties extends { [name: string]: ElicitationFormProperty } = {
    [name: string]: ElicitationFormProperty;
  },
> = FormElicitationMode<Properties> | UrlElicitationMode;

import { randomUUID } from 'node:crypto';
import {
  type AcpSessionContext,
  acpSessions,
  choiceField,
  type ElicitationCancelled,
  type ElicitationDeclined,
  type ElicitationResult,
  ElicitationUnsupportedError,
  InvalidElicitationResponseError,
} from '@acpkit/elicitation';
import { type AgentApp, agent, methods, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { z } from 'zod';

/**
 * The version the release must come after.
 *
 * @example
 * ```ts
 * import { CURRENT_VERSION } from '@acpkit/example-release-form';
 *
 * console.log(CURRENT_VERSION); // '1.4.0'
 * ```
 */
export const CURRENT_VERSION = '1.4.0';

/**
 * The release channels: object values the client never sees (it sees the labels and opaque tokens).
 *
 * @example
 * ```ts
 * import { CHANNELS } from '@acpkit/example-release-form';
 *
 * CHANNELS.map((channel) => channel.value.npmTag); // ['latest', 'next']
 * ```
 */
export const CHANNELS = [
  { value: { name: 'stable', npmTag: 'latest' }, label: 'Stable', default: true },
  {
    value: { name: 'preview', npmTag: 'next' },
    label: 'Preview',
    description: 'Published under the next tag.',
  },
] as const;

/**
 * The packages that can be published, as objects.
 *
 * @example
 * ```ts
 * import { PACKAGES } from '@acpkit/example-release-form';
 *
 * PACKAGES.map((entry) => entry.value.name); // ['@acpkit/elicitation', '@acpkit/remote', '@acpkit/cli']
 * ```
 */
export const PACKAGES = [
  {
    value: { name: '@acpkit/elicitation', directory: 'packages/elicitation' },
    label: 'elicitation',
    default: true,
  },
  { value: { name: '@acpkit/remote', directory: 'packages/remote' }, label: 'remote' },
  { value: { name: '@acpkit/cli', directory: 'apps/acpkit' }, label: 'cli', description: 'The acpkit CLI.' },
] as const;

function versionParts(version: string): number[] {
  return version.split('.').map(Number);
}

/** Whether `version` (MAJOR.MINOR.PATCH) comes after {@link CURRENT_VERSION}. */
function isAfterCurrent(version: string): boolean {
  const [major = 0, minor = 0, patch = 0] = versionParts(version);
  const [currentMajor = 0, currentMinor = 0, currentPatch = 0] = versionParts(CURRENT_VERSION);
  if (major !== currentMajor) return major > currentMajor;
  if (minor !== currentMinor) return minor > currentMinor;
  return patch > currentPatch;
}

/**
 * The release form: six fields of every kind. The pattern, lengths, format and bounds are sent to the client; the
 * "after the current version" rule is a `.refine()`, checked on the answer only.
 *
 * @example
 * ```ts
 * import { RELEASE_FORM } from '@acpkit/example-release-form';
 *
 * Object.keys(RELEASE_FORM.shape); // ['version', 'notes', 'date', 'channel', 'rollout', 'notify']
 * ```
 */
export const RELEASE_FORM = z
  .object({
    version: z
      .string()
      // `abort`: a version that is not MAJOR.MINOR.PATCH is not compared with the current one.
      .regex(/^\d+\.\d+\.\d+$/, { error: 'Use MAJOR.MINOR.PATCH, such as 1.5.0', abort: true })
      .refine(isAfterCurrent, { message: `Must come after ${CURRENT_VERSION}` })
      .default('1.5.0')
      .meta({ title: 'Version', description: `MAJOR.MINOR.PATCH, after ${CURRENT_VERSION}` }),
    notes: z.string().min(3).max(200).optional().meta({ title: 'Release notes' }),
    date: z.iso.date().optional().meta({ title: 'Release date' }),
    channel: choiceField(CHANNELS).meta({ title: 'Channel' }),
    rollout: z.int().min(1).max(100).default(10).meta({ title: 'Rollout percentage' }),
    notify: z.boolean().default(true).meta({ title: 'Notify the team' }),
  })
  .meta({ title: 'Release details' });

/**
 * What the release form parses to.
 *
 * @example
 * ```ts
 * import type { ReleaseDetails } from '@acpkit/example-release-form';
 *
 * const details: Pick<ReleaseDetails, 'version' | 'rollout'> = { version: '1.5.0', rollout: 10 };
 * ```
 */
export type ReleaseDetails = z.infer<typeof RELEASE_FORM>;

/**
 * A package to publish.
 *
 * @example
 * ```ts
 * import type { ReleasePackage } from '@acpkit/example-release-form';
 *
 * const remote: ReleasePackage = { name: '@acpkit/remote', directory: 'packages/remote' };
 * ```
 */
export type ReleasePackage = (typeof PACKAGES)[number]['value'];

/**
 * How many times the form is asked when the answers do not pass its schema.
 *
 * @example
 * ```ts
 * import { FORM_ATTEMPTS } from '@acpkit/example-release-form';
 *
 * console.log(FORM_ATTEMPTS); // 3
 * ```
 */
export const FORM_ATTEMPTS = 3;

/**
 * Reply when the client cannot show forms.
 *
 * @example
 * ```ts
 * import { UNSUPPORTED_REPLY } from '@acpkit/example-release-form';
 *
 * console.log(UNSUPPORTED_REPLY);
 * ```
 */
export const UNSUPPORTED_REPLY =
  'This ACP client does not support form elicitation, so the release could not be planned.';

/**
 * The plan the agent reports once the form and the package choice are answered (JSON, for scripts and tests).
 *
 * @example
 * ```ts
 * import { planText } from '@acpkit/example-release-form';
 *
 * planText(
 *   { version: '1.5.0', channel: { name: 'stable', npmTag: 'latest' }, rollout: 10, notify: true },
 *   [{ name: '@acpkit/remote', directory: 'packages/remote' }],
 * );
 * ```
 */
export function planText(details: ReleaseDetails, packages: readonly ReleasePackage[]): string {
  return `Release plan: ${JSON.stringify({ ...details, packages })}`;
}

function stepEnded(step: string, result: ElicitationDeclined | ElicitationCancelled): string {
  return result.status === 'declined'
    ? `Release not planned: the ${step} was declined.`
    : `Release not planned: the ${step} was cancelled.`;
}

/** One line per message: the chunks of a turn are shown as one streamed text. */
function sayLine(session: AcpSessionContext, text: string): Promise<void> {
  return session.say(`${text}\n`);
}

/** Asks the release form, asking again (with what was wrong) while the answers fail its schema. */
async function askReleaseDetails(session: AcpSessionContext): Promise<ElicitationResult<ReleaseDetails>> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await session.askForm('Plan the release', RELEASE_FORM);
    } catch (error) {
      if (!InvalidElicitationResponseError.isInstance(error) || error.code !== 'INVALID_CONTENT') throw error;
      const problems = error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
      if (attempt === FORM_ATTEMPTS) {
        await sayLine(
          session,
          `Release not planned: the answers did not pass after ${FORM_ATTEMPTS} attempts (${problems}).`,
        );
        throw error;
      }
      await sayLine(session, `Those answers were not accepted (${problems}). Please try again.`);
    }
  }
}

/** The whole conversation of one prompt; returns the final reply. */
async function planRelease(session: AcpSessionContext): Promise<string> {
  const details = await askReleaseDetails(session);
  if (details.status !== 'accepted') return stepEnded('release form', details);
  const packages = await session.askChoices('Which packages should be published?', PACKAGES, {
    minItems: 1,
    title: 'Packages',
  });
  if (packages.status !== 'accepted') return stepEnded('package choice', packages);
  await sayLine(session, planText(details.value, packages.value));
  const { version, channel, rollout } = details.value;
  const confirmed = await session.askConfirm(
    `Publish ${version} of ${packages.value.length} package(s) under the npm tag ${channel.npmTag} to ${rollout}% of users?`,
    { default: false, title: 'Publish now' },
  );
  if (confirmed.status !== 'accepted') return stepEnded('confirmation', confirmed);
  return confirmed.value
    ? `Publishing ${version}: ${packages.value.map((entry) => entry.name).join(', ')}.`
    : 'Not published: the release was not confirmed.';
}

/**
 * Creates a fresh ACP agent app that, on any prompt, plans a release with typed forms: the release form
 * (`askForm`, asked again while its answers fail the schema), the packages to publish (`askChoices` of object
 * values) and a confirmation (`askConfirm`); it replies with `agent_message_chunk` texts. Each call returns a new
 * app; state lives per connection.
 *
 * @example
 * ```ts
 * import { Readable, Writable } from 'node:stream';
 * import { ndJsonStream } from '@agentclientprotocol/sdk';
 * import { createReleaseFormAgent } from '@acpkit/example-release-form';
 *
 * createReleaseFormAgent().connect(ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
 * ```
 */
export function createReleaseFormAgent(): AgentApp {
  const sessions = acpSessions();
  return (
    agent({ name: 'release-form' })
      .onRequest(
        methods.agent.initialize,
        sessions.initialize(({ params }) => ({
          protocolVersion: Math.min(params.protocolVersion, PROTOCOL_VERSION),
          agentCapabilities: {},
          authMethods: [],
          agentInfo: { name: 'release-form', title: 'Release form example', version: '0.0.0' },
        })),
      )
      .onNotification(methods.agent.session.cancel, sessions.cancel())
      .onRequest(methods.agent.session.new, () => ({ sessionId: randomUUID() }))
      // sessions.prompt ties every question to session/cancel and ends a cancelled turn with stopReason "cancelled".
      .onRequest(
        methods.agent.session.prompt,
        sessions.prompt(async (session) => {
          let reply: string | undefined;
          try {
            reply = await planRelease(session);
          } catch (error) {
            if (ElicitationUnsupportedError.isInstance(error)) reply = UNSUPPORTED_REPLY;
            else if (!InvalidElicitationResponseError.isInstance(error)) throw error;
            else if (error.code !== 'INVALID_CONTENT')
              reply = `The client's answer was not usable: ${error.message}`;
          }
          if (reply !== undefined) await sayLine(session, reply);
        }),
      )
  );
}

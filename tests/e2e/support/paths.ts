import { fileURLToPath } from 'node:url';

/** Absolute path of the repository root. */
export const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** The built bins under test (run `pnpm build` first; the e2e suite never builds). */
export const cliPaths = {
  acpremote: `${repositoryRoot}apps/acpremote/dist/cli.js`,
  acpkit: `${repositoryRoot}apps/acpkit/dist/cli.js`,
} as const;

/** The deploy-target example: a stdio agent directory and its in-process module. */
export const deployTarget = {
  directory: `${repositoryRoot}examples/deploy-target`,
  stdioAgent: `${repositoryRoot}examples/deploy-target/dist/agent.js`,
  module: `${repositoryRoot}examples/deploy-target/dist/index.js`,
} as const;

/** The ai-sdk-agent example (an AI SDK agent over ACP): a stdio agent directory and its in-process module. */
export const aiSdkAgent = {
  directory: `${repositoryRoot}examples/ai-sdk-agent`,
  module: `${repositoryRoot}examples/ai-sdk-agent/dist/index.js`,
} as const;

/** The langchain-agent example (a LangChain.js createAgent over ACP): a stdio agent directory and its module. */
export const langchainAgent = {
  directory: `${repositoryRoot}examples/langchain-agent`,
  module: `${repositoryRoot}examples/langchain-agent/dist/index.js`,
} as const;

/** Absolute path of a file under `tests/e2e/fixtures/`. */
export function fixturePath(name: string): string {
  return fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
}

// The shared adapter suite against ai 6 (the workspace's copy, MockLanguageModelV3), in-process.
import { connectTestClient } from '@acpkit/testing';
import { describeAdapterSuite } from './support/adapter-suite.js';
import { connectApp, scenarioAgentAi6 } from './support/ai6.js';

describeAdapterSuite('ai 6', {
  testClient: (agentOptions, clientOptions) =>
    connectTestClient(scenarioAgentAi6(agentOptions).app, clientOptions),
  rawStream: async (agentOptions) => connectApp(scenarioAgentAi6(agentOptions).app),
});

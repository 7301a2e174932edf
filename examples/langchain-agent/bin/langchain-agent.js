#!/usr/bin/env node
// The `langchain-agent` command. A launcher that exists before the build, so that pnpm can link the command at
// install time (it warns "Failed to create bin" for a file the build has not written yet); it runs the built program.
import '../dist/agent.js';

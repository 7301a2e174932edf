#!/usr/bin/env node
// The `ai-sdk-coding-agent` command. A launcher that exists before the build, so that pnpm can link the command at
// install time (it warns "Failed to create bin" for a file the build has not written yet); it runs the built program.
import '../dist/coding-agent-main.js';

// Types for python-venv.mjs, so the TypeScript tests in tests/interop-python can import it.

/** The pinned lock file the venv is built from. */
export declare const lockFile: string;
/** The top-level pins (`acpkit==…`, `acpremote==…`, `pydantic-acp==…`). */
export declare const topLevelRequirementsFile: string;
/** `tests/interop-python/.venv`. */
export declare const venvDirectory: string;
/** Path of an executable inside the venv (`python`, `acpremote`, `acpkit`). */
export declare function venvBinary(name: string): string;
/** The exact `name==version` pins of requirements.in, keyed by lower-case name. */
export declare function topLevelPins(): Record<string, string>;
/** Creates the venv unless one built from the current lock file and Python version exists; throws with the installer's output. */
export declare function ensurePythonVenv(options?: { log?: (line: string) => void }): {
  reused: boolean;
  seconds: number;
  pythonVersion: string;
};

"""A form-answering ACP client written on the Python ACP SDK (`agent-client-protocol`, as the Python ACP Kit pins it).

It shows that ACP Kit for TypeScript's `askForm`, `askConfirm`, `askText` and `askChoices` need nothing from a client
but ACP itself: `python forms_client.py PROMPT COMMAND...` spawns the stdio agent COMMAND, initializes advertising form
elicitation, opens a session, sends PROMPT, and answers every `elicitation/create` through the SDK's own typed
handler (so Python's models parse each form). Each field is answered from the schema as Python parsed it: its
`default`, else (when required) the first option, `true`, or `"text"`; optional fields without a default are left out.
It prints one JSON line on stdout: `{"forms": [{"message", "requestedSchema", "content"}], "text": ..., "stopReason": ...}`,
with each `requestedSchema` as Python's model dumps it.

Test code only (it is never shipped). stdout carries only that JSON line; the agent's stderr passes through.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from acp import PROTOCOL_VERSION, spawn_agent_process, text_block
from acp.schema import (
    AcceptElicitationResponse,
    AgentMessageChunk,
    AllowedOutcome,
    ClientCapabilities,
    ElicitationCapabilities,
    ElicitationFormCapabilities,
    RequestPermissionResponse,
    TextContentBlock,
)


def _answer(name: str, schema: dict[str, Any], required: bool) -> Any:
    if "default" in schema:
        return schema["default"]
    if not required:
        return None
    if schema.get("oneOf"):
        return schema["oneOf"][0]["const"]
    if schema.get("type") == "array":
        return [schema["items"]["anyOf"][0]["const"]]
    if schema.get("type") == "boolean":
        return True
    if schema.get("type") in ("number", "integer"):
        return schema.get("minimum", 1)
    return f"{name}-text"


class FormsClient:
    def __init__(self) -> None:
        self.forms: list[dict[str, Any]] = []
        self.text = ""

    async def create_elicitation(self, message: str, mode: Any, **_: Any) -> AcceptElicitationResponse:
        requested = mode.requested_schema.model_dump(mode="json", by_alias=True, exclude_none=True)
        required = set(requested.get("required", []))
        content: dict[str, Any] = {}
        for name, schema in requested.get("properties", {}).items():
            value = _answer(name, schema, name in required)
            if value is not None:
                content[name] = value
        self.forms.append({"message": message, "requestedSchema": requested, "content": content})
        return AcceptElicitationResponse(action="accept", content=content)

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        if isinstance(update, AgentMessageChunk) and isinstance(update.content, TextContentBlock):
            self.text += update.content.text

    async def request_permission(self, options: Any, session_id: str, tool_call: Any, **_: Any) -> Any:
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=options[0].option_id))


async def main() -> None:
    prompt, command, *args = sys.argv[1:]
    client = FormsClient()
    async with spawn_agent_process(client, command, *args, use_unstable_protocol=True) as (connection, _process):
        await connection.initialize(
            protocol_version=PROTOCOL_VERSION,
            client_capabilities=ClientCapabilities(
                elicitation=ElicitationCapabilities(form=ElicitationFormCapabilities())
            ),
        )
        session = await connection.new_session(cwd=".", mcp_servers=[])
        response = await connection.prompt(session_id=session.session_id, prompt=[text_block(prompt)])
    print(json.dumps({"forms": client.forms, "text": client.text, "stopReason": response.stop_reason}))


if __name__ == "__main__":
    asyncio.run(main())

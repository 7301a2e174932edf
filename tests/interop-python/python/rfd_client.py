"""A client on the Python ACP SDK's own RFD transports (`acp.http.create_http_stream`, `acp.ws.create_websocket_stream`)
for the interop tests: it is what a user of `agent-client-protocol` 0.12.1 writes to reach a remote agent.

    python rfd_client.py PROMPT TITLE (http|ws URL)...

For each transport and URL, concurrently: connects over that transport, initializes advertising form elicitation (with `use_unstable_protocol=True`: the
Python SDK treats `elicitation/create` as unstable and answers -32601 without it), opens a session in the current
directory, sends PROMPT, and answers every `elicitation/create` by accepting the single-choice option titled TITLE.
Prints one JSON line on stdout: a list with one entry per URL, in order: `{"forms": [{"message", "requestedSchema"}],
"text": ..., "stopReason": ...}`, or `{"error": "<type>: <message>"}` when that turn failed or took more than 30 s (a
transport that loses the answer makes the prompt hang, which must fail the test rather than block it). One process
runs every turn, so the tests pay the SDK's import time once.

Test code only (it is never shipped).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

from acp import PROTOCOL_VERSION, connect_to_agent, text_block
from acp.http import create_http_stream
from acp.schema import (
    AcceptElicitationResponse,
    AgentMessageChunk,
    ClientCapabilities,
    ElicitationCapabilities,
    ElicitationFormCapabilities,
    TextContentBlock,
)
from acp.ws import create_websocket_stream

TURN_TIMEOUT_SECONDS = 30.0


class ChoosingClient:
    def __init__(self, title: str) -> None:
        self.title = title
        self.forms: list[dict[str, Any]] = []
        self.text = ""

    async def create_elicitation(self, message: str, mode: Any, **_: Any) -> AcceptElicitationResponse:
        requested = mode.requested_schema.model_dump(mode="json", by_alias=True, exclude_none=True)
        self.forms.append({"message": message, "requestedSchema": requested})
        for name, schema in requested.get("properties", {}).items():
            for option in schema.get("oneOf", []):
                if option.get("title") == self.title:
                    return AcceptElicitationResponse(action="accept", content={name: option["const"]})
        raise ValueError(f"no option titled {self.title!r} in {json.dumps(requested)}")

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        if isinstance(update, AgentMessageChunk) and isinstance(update.content, TextContentBlock):
            self.text += update.content.text


async def turn(transport_kind: str, url: str, prompt: str, title: str) -> dict[str, Any]:
    transport = (
        create_http_stream(url) if transport_kind == "http" else await create_websocket_stream(url)
    )
    client = ChoosingClient(title)
    connection = connect_to_agent(client, transport, use_unstable_protocol=True)
    try:
        await connection.initialize(
            protocol_version=PROTOCOL_VERSION,
            client_capabilities=ClientCapabilities(
                elicitation=ElicitationCapabilities(form=ElicitationFormCapabilities())
            ),
        )
        session = await connection.new_session(cwd=os.getcwd(), mcp_servers=[])
        response = await connection.prompt(session_id=session.session_id, prompt=[text_block(prompt)])
        return {"forms": client.forms, "text": client.text, "stopReason": response.stop_reason}
    finally:
        await transport.close()


async def reported_turn(transport_kind: str, url: str, prompt: str, title: str) -> dict[str, Any]:
    try:
        return await asyncio.wait_for(turn(transport_kind, url, prompt, title), TURN_TIMEOUT_SECONDS)
    except Exception as error:  # noqa: BLE001 - every failure is reported to the test as data
        return {"error": f"{type(error).__name__}: {error}"}


async def main() -> int:
    prompt, title, *targets = sys.argv[1:]
    pairs = list(zip(targets[0::2], targets[1::2], strict=True))
    results = await asyncio.gather(*(reported_turn(kind, url, prompt, title) for kind, url in pairs))
    print(json.dumps(results), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

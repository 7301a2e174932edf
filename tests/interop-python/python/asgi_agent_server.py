"""The Python ACP SDK's own RFD transport server, for the interop tests: `acp.http.asgi.create_asgi_app` (Streamable
HTTP and WebSocket on one endpoint) under uvicorn, serving a small agent written on the same SDK.

    python asgi_agent_server.py

Binds 127.0.0.1 at a port the OS chooses and writes one line to stderr:
`Python ASGI app at http://127.0.0.1:PORT/acp` (the app ignores the path; the tests use /acp). SIGTERM or SIGINT
stops it (uvicorn's own handlers).

The agent (one per connection, as the SDK's factory asks) answers every prompt the way examples/deploy-target does:
one `elicitation/create` (form mode, one single-choice property `choice` with the options `preview` and
`production`), then one `agent_message_chunk`: `Selected: <value>`, `The user declined to choose.` or `The choice
was cancelled.`, and `stopReason` `end_turn`. It is written on the SDK alone (no pydantic-acp), so the server starts in
a fraction of the time and the tests measure the transport, not the adapter.

Test code only (it is never shipped).
"""

from __future__ import annotations

import asyncio
import socket
import sys
import uuid
from typing import Any

import uvicorn
from acp import PROTOCOL_VERSION, text_block, update_agent_message
from acp.http.asgi import create_asgi_app
from acp.schema import (
    AcceptElicitationResponse,
    AgentCapabilities,
    DeclineElicitationResponse,
    ElicitationFormSessionMode,
    InitializeResponse,
    NewSessionResponse,
    PromptResponse,
)

QUESTION = "Choose a deployment target"
REQUESTED_SCHEMA = {
    "type": "object",
    "required": ["choice"],
    "properties": {
        "choice": {
            "type": "string",
            "title": "Choice",
            "oneOf": [{"const": "preview", "title": "Preview"}, {"const": "production", "title": "Production"}],
        }
    },
}


class DeployAgent:
    def __init__(self) -> None:
        self._connection: Any = None

    def on_connect(self, connection: Any) -> None:
        self._connection = connection

    async def initialize(self, protocol_version: int, **_: Any) -> InitializeResponse:
        return InitializeResponse(protocol_version=PROTOCOL_VERSION, agent_capabilities=AgentCapabilities())

    async def new_session(self, cwd: str, **_: Any) -> NewSessionResponse:
        return NewSessionResponse(session_id=f"python-{uuid.uuid4().hex[:12]}")

    async def prompt(self, session_id: str, prompt: Any, **_: Any) -> PromptResponse:
        mode = ElicitationFormSessionMode.model_validate({"sessionId": session_id, "requestedSchema": REQUESTED_SCHEMA})
        answer = await self._connection.create_elicitation(message=QUESTION, mode=mode)
        if isinstance(answer, AcceptElicitationResponse):
            content = answer.content or {}
            value = content.get("choice")
            reply = f"Selected: {getattr(value, 'root', value)}"
        elif isinstance(answer, DeclineElicitationResponse):
            reply = "The user declined to choose."
        else:
            reply = "The choice was cancelled."
        await self._connection.session_update(session_id=session_id, update=update_agent_message(text_block(reply)))
        return PromptResponse(stop_reason="end_turn")


async def main() -> None:
    app = create_asgi_app(lambda _connection: DeployAgent())
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan="on", ws="websockets-sansio")
    server = uvicorn.Server(config)
    print(f"Python ASGI app at http://127.0.0.1:{port}/acp", file=sys.stderr, flush=True)
    await server.serve(sockets=[listener])


if __name__ == "__main__":
    asyncio.run(main())

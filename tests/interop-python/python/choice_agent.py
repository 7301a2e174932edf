"""A real pydantic-acp stdio agent whose `/choose` slash command calls the Python ACP Kit's `ask_choice`.

The interop tests (tests/interop-python) drive it over stdio, directly or behind Python `acpremote expose`. A
prompt `/choose {"question": ..., "choices": [{"value": ..., "label": ..., "description"?: ..., "default"?: ...}]}`
asks that question with `AcpSessionContext.ask_choice` and replies with one `agent_message_chunk` holding the
outcome as JSON: `{"outcome": "accepted", "value": ...}`, `{"outcome": "declined"}`, `{"outcome": "cancelled"}`,
or `{"outcome": "error", "type": ..., "code"?: ..., "message": ...}` for any exception ask_choice raised.

Test code only (it is never shipped); it uses pydantic-acp's public API and a pydantic-ai TestModel, so no model
provider or network is involved. stdout carries only JSON-RPC.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from acp import run_agent
from acp.schema import AvailableCommand
from pydantic_acp import AdapterConfig, ElicitationChoice, create_acp_agent
from pydantic_acp.slash import (
    SlashCommandRequest,
    SlashCommandResult,
    StaticSlashCommand,
    StaticSlashCommandProvider,
)
from pydantic_ai import Agent
from pydantic_ai.models.test import TestModel


def _outcome_of_error(error: Exception) -> dict[str, Any]:
    outcome: dict[str, Any] = {"outcome": "error", "type": type(error).__name__, "message": str(error)}
    code = getattr(error, "code", None)
    if isinstance(code, int):
        outcome["code"] = code
    return outcome


async def _choose(request: SlashCommandRequest) -> SlashCommandResult:
    case = json.loads(request.argument or "{}")
    try:
        choices = [
            ElicitationChoice(
                value=choice["value"],
                label=choice["label"],
                description=choice.get("description"),
                default=choice.get("default", False),
            )
            for choice in case["choices"]
        ]
        result = await request.session.ask_choice(case["question"], choices)
        outcome: dict[str, Any] = {"outcome": result.status}
        if result.status == "accepted":
            outcome["value"] = result.value
    except Exception as error:  # noqa: BLE001 - every failure is reported to the test as data
        outcome = _outcome_of_error(error)
    return SlashCommandResult(text=json.dumps(outcome))


def create_choice_agent() -> Any:
    commands = StaticSlashCommandProvider(
        commands=[
            StaticSlashCommand(
                command=AvailableCommand(name="choose", description="Ask one ask_choice question."),
                handler=_choose,
            ),
        ],
    )
    return create_acp_agent(
        Agent(TestModel(), name="acpkit-interop-choice-agent"),
        config=AdapterConfig(slash_command_provider=commands),
    )


if __name__ == "__main__":
    asyncio.run(run_agent(create_choice_agent()))

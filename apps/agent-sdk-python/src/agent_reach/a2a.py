"""A2A v1.0 wire shapes (JSON, as the spec's proto-JSON spells them) that a Python agent reads and writes."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

#: Our A2A extension: card params and the per-message metadata key (same URI as the TypeScript SDK).
REACH_EXTENSION = "https://agent-reach.dev/extensions/capabilities/v1"
A2A_VERSION = "1.0"
CARD_PATH = "/.well-known/agent-card.json"
JSONRPC_PATH = "/a2a/jsonrpc"
REST_PATH = "/a2a/rest"

SUBMITTED = "TASK_STATE_SUBMITTED"
WORKING = "TASK_STATE_WORKING"
COMPLETED = "TASK_STATE_COMPLETED"
FAILED = "TASK_STATE_FAILED"
CANCELED = "TASK_STATE_CANCELED"
REJECTED = "TASK_STATE_REJECTED"
INPUT_REQUIRED = "TASK_STATE_INPUT_REQUIRED"
AUTH_REQUIRED = "TASK_STATE_AUTH_REQUIRED"
#: States after which a task never changes.
TERMINAL = {COMPLETED, FAILED, CANCELED, REJECTED}
#: States that end a call (a caller of ours cannot answer for input or auth).
FINAL = TERMINAL | {INPUT_REQUIRED, AUTH_REQUIRED}

# JSON-RPC error codes: the JSON-RPC 2.0 ones and A2A's own.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
TASK_NOT_FOUND = -32001
TASK_NOT_CANCELABLE = -32002


def now_iso() -> str:
    """Wall-clock time for display, as A2A timestamps are."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parts_of(value: Any) -> list[dict]:
    """A value as message/artifact parts: a string as text, None as no part, anything else as data."""
    if value is None:
        return []
    if isinstance(value, str):
        return [{"text": value, "mediaType": "text/plain"}]
    return [{"data": value, "mediaType": "application/json"}]


def value_of_parts(parts: list[Any] | None) -> Any:
    """Parts back to one value: none → None, one → its content, several → the list of contents."""
    if not parts:
        return None
    values = []
    for part in parts:
        if not isinstance(part, dict):
            values.append(None)
        elif "text" in part:
            values.append(part["text"])
        elif "data" in part:
            values.append(part["data"])
        elif "url" in part:
            values.append(part["url"])
        else:
            values.append(part.get("raw"))
    return values[0] if len(values) == 1 else values


def reach_metadata(message: dict) -> dict:
    """What an Agent Reach caller put in the message metadata under our extension (empty for anyone else)."""
    metadata = message.get("metadata")
    found = metadata.get(REACH_EXTENSION) if isinstance(metadata, dict) else None
    return found if isinstance(found, dict) else {}


def send_message_params(request_id: str, payload: Any, reach: dict) -> dict:
    """`SendMessageRequest` params for one call of ours: the request_id travels as the messageId."""
    return {
        "message": {
            "messageId": request_id,
            "role": "ROLE_USER",
            "parts": parts_of(payload),
            "metadata": {REACH_EXTENSION: reach},
            "extensions": [REACH_EXTENSION],
        }
    }

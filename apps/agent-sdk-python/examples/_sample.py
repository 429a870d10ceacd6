"""What the Python samples share: settings from the environment and the seed's declaration files."""

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# Run from a checkout without installing: the package lives in ../src.
sys.path.insert(0, str(HERE.parent / "src"))
# The seed's declaration files, shared with the TypeScript samples (one home per declaration).
DECLARATIONS = HERE.parent.parent / "agent-sdk" / "examples"


def runtime_options() -> dict:
    return {
        "control_plane_url": os.environ.get("REACH_CONTROL_PLANE_URL") or "http://127.0.0.1:8701",
        "host": os.environ.get("HOST") or "127.0.0.1",
        "port": int(os.environ.get("PORT") or 0),
        "registry_token": os.environ.get("REACH_REGISTRY_TOKEN") or None,
    }


def require_text(payload: dict, max_chars: int = 5000) -> tuple[str, int]:
    """The summarize input (`text`, `max_length`), or VALIDATION_FAILED naming the field."""
    from agent_reach.sdk import ReachError

    text = payload.get("text")
    if not isinstance(text, str) or not 1 <= len(text) <= max_chars:
        raise ReachError("VALIDATION_FAILED", f"input.text: a string of 1 to {max_chars} characters is required")
    max_length = payload.get("max_length", 200)
    if not isinstance(max_length, int) or isinstance(max_length, bool) or not 10 <= max_length <= 5000:
        raise ReachError("VALIDATION_FAILED", "input.max_length: an integer from 10 to 5000")
    return text, max_length


def cut_at_word(text: str, limit: int) -> str:
    """Cuts `text` to at most `limit` characters at a word boundary, marking the cut with an ellipsis."""
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    space = head.rfind(" ")
    return (head[:space] if space > limit / 2 else head).rstrip() + "…"

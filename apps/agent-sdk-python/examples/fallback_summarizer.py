"""fallback-summarizer (seed article 3.2), in Python: the fallback chain's cruder backup.

    python3 apps/agent-sdk-python/examples/fallback_summarizer.py
"""

from _sample import DECLARATIONS, cut_at_word, require_text, runtime_options

from agent_reach.sdk import AgentRuntime

runtime = AgentRuntime(
    agent_name="fallback-summarizer",
    capability_file=DECLARATIONS / "fallback-summarizer" / "declaration.json",
    **runtime_options(),
)


@runtime.agent_entrypoint
async def handle_request(request_id: str, payload: dict) -> dict:
    text, max_len = require_text(payload)
    summary = cut_at_word(" ".join(text.split()), max_len)
    return {"summary": summary, "method": "demo: truncation at a word boundary (fallback quality, python)"}


if __name__ == "__main__":
    runtime.start()

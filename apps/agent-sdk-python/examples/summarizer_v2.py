"""summarizer-v2 (seed article 3.2 and 4.1), in Python: an extractive demo summarizer.

    python3 apps/agent-sdk-python/examples/summarizer_v2.py
"""

import re

from _sample import DECLARATIONS, cut_at_word, require_text, runtime_options

from agent_reach.sdk import AgentRuntime

runtime = AgentRuntime(
    agent_name="summarizer-v2",
    capability_file=DECLARATIONS / "summarizer-v2" / "declaration.json",
    **runtime_options(),
)


def sentences(text: str) -> list[str]:
    parts = re.split(r"(?<=[.!?。！？])\s*", re.sub(r"\s+", " ", text))
    return [p.strip() for p in parts if p.strip()]


@runtime.agent_entrypoint
def handle_request(request_id: str, payload: dict) -> dict:
    text, max_len = require_text(payload)
    picked: list[str] = []
    length = 0
    for sentence in sentences(text):
        extra = len(sentence) if not picked else len(sentence) + 1
        if length + extra > max_len:
            break
        picked.append(sentence)
        length += extra
    summary = " ".join(picked) if picked else cut_at_word((sentences(text) or [text])[0], max_len)
    return {"summary": summary, "method": "demo: extractive, the leading sentences that fit max_length (python)"}


if __name__ == "__main__":
    runtime.start()

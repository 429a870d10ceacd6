"""translator (seed article 3.2), in Python: a word-table demo translator.

    python3 apps/agent-sdk-python/examples/translator.py
"""

import re

from _sample import DECLARATIONS, runtime_options

from agent_reach.sdk import AgentRuntime, ReachError

runtime = AgentRuntime(
    agent_name="translator",
    capability_file=DECLARATIONS / "translator" / "declaration.json",
    **runtime_options(),
)

# A deliberately tiny English word table: a demo of the protocol, not a translator.
TABLE = {
    "the": ("le", "der", "el"), "a": ("un", "ein", "un"), "agent": ("agent", "Agent", "agente"),
    "agents": ("agents", "Agenten", "agentes"), "and": ("et", "und", "y"), "call": ("appeler", "aufrufen", "llamar"),
    "each": ("chaque", "jeder", "cada"), "find": ("trouver", "finden", "encontrar"), "good": ("bon", "gut", "bueno"),
    "hello": ("bonjour", "hallo", "hola"), "is": ("est", "ist", "es"), "morning": ("matin", "Morgen", "mañana"),
    "other": ("autre", "andere", "otro"), "summary": ("résumé", "Zusammenfassung", "resumen"),
    "text": ("texte", "Text", "texto"), "thank": ("merci", "danke", "gracias"), "world": ("monde", "Welt", "mundo"),
    "you": ("vous", "Sie", "usted"),
}  # fmt: skip
COLUMN = {"fr": 0, "de": 1, "es": 2}


@runtime.agent_entrypoint
def handle_request(request_id: str, payload: dict) -> dict:
    text, lang = payload.get("text"), payload.get("target_lang")
    if not isinstance(text, str) or not 1 <= len(text) <= 5000:
        raise ReachError("VALIDATION_FAILED", "input.text: a string of 1 to 5000 characters is required")
    if lang not in COLUMN:
        raise ReachError("VALIDATION_FAILED", "input.target_lang: one of fr, de, es")
    untranslated: list[str] = []

    def swap(match: re.Match) -> str:
        word = match.group(0)
        entry = TABLE.get(word.lower())
        if entry is None:
            if word not in untranslated:
                untranslated.append(word)
            return word
        target = entry[COLUMN[lang]]
        return target[0].upper() + target[1:] if word[0].isupper() else target

    translation = re.sub(r"[A-Za-z]+", swap, text)
    return {
        "translation": translation,
        "target_lang": lang,
        "untranslated": untranslated,
        "method": "demo: word-by-word table lookup, not a real translation (python)",
    }


if __name__ == "__main__":
    runtime.start()

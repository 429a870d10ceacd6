"""The A2A v1.0 agent card a Python agent serves, built from its declaration, and its digest."""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass

from . import a2a
from .declaration import published_capabilities

_MODES = ["application/json", "text/plain"]


def endpoint_base(host: str, port: int, scheme: str = "http") -> str:
    return f"{scheme}://{'[' + host + ']' if ':' in host else host}:{port}"


def build_agent_card(declaration: dict, host: str, port: int, scheme: str = "http") -> dict:
    """The card: the bindings served, one skill per operation, and our extension with the declaration."""
    base = endpoint_base(host, port, scheme)
    params = {
        "capability_ids": published_capabilities(declaration),
        "domain": declaration["domain"],
        "operations": declaration["capabilities"],
        "idempotent": declaration["idempotent"],
        "priority": declaration["priority"],
        "declaration_version": declaration["version"],
    }
    skills = []
    for op_id, op in declaration["capabilities"].items():
        skill = {
            "id": op_id,
            "name": op_id,
            "description": op.get("description")
            or f"{op_id}: {', '.join(op.get('input', []))} -> {', '.join(op.get('output', []))}",
            # The domain, what it serves and its own tags, each once (the live catalog ranks this text).
            "tags": list(dict.fromkeys([declaration["domain"], *op.get("serves", []), *op.get("tags", [])])),
            "inputModes": _MODES,
            "outputModes": _MODES,
        }
        if op.get("examples"):
            skill["examples"] = op["examples"]
        skills.append(skill)
    return {
        "name": declaration["agent_name"],
        "description": declaration.get("description") or f"{declaration['agent_name']} ({declaration['domain']})",
        "supportedInterfaces": [
            {"url": f"{base}{a2a.JSONRPC_PATH}", "protocolBinding": "JSONRPC", "protocolVersion": a2a.A2A_VERSION},
            {"url": f"{base}{a2a.REST_PATH}", "protocolBinding": "HTTP+JSON", "protocolVersion": a2a.A2A_VERSION},
        ],
        "version": declaration["version"],
        "capabilities": {
            "streaming": True,
            "pushNotifications": False,
            "extensions": [
                {
                    "uri": a2a.REACH_EXTENSION,
                    "description": "Agent Reach capability declaration: domain, operations with constraints, "
                    "idempotency, declaration version",
                    "required": False,
                    "params": params,
                }
            ],
        },
        "defaultInputModes": _MODES,
        "defaultOutputModes": _MODES,
        "skills": skills,
    }


@dataclass(frozen=True)
class CardDocument:
    """The card's exact served bytes, their sha256 (base64url, published in DNS as cap-sha256) and ETag."""

    bytes: bytes
    sha256: str
    etag: str

    @staticmethod
    def of(card: dict) -> CardDocument:
        data = json.dumps(card, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
        return CardDocument(data, digest, f'"{digest}"')

    def matches(self, if_none_match: str | None) -> bool:
        """Whether an If-None-Match header names this card (weak comparison, `*` included)."""
        if not if_none_match:
            return False
        tags = [tag.strip() for tag in if_none_match.split(",")]
        return any(tag == "*" or tag.removeprefix("W/") == self.etag for tag in tags)

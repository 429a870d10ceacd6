"""Capability declaration files: loaded, validated against the shared JSON Schema, defaults applied."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

from .errors import ReachError
from .jsonschema import SchemaError, validate

_SCHEMA: dict[str, Any] = json.loads(
    resources.files("agent_reach").joinpath("declaration.schema.json").read_text(encoding="utf-8")
)


def declaration_schema() -> dict[str, Any]:
    """The JSON Schema of a declaration file (generated from the TypeScript SDK's zod schema)."""
    return _SCHEMA


def _invalid(origin: str, message: str, field: str) -> ReachError:
    return ReachError("INVALID_DECLARATION", f"{origin}: {message}", {"field": field, "source": origin})


def parse_declaration(raw: Any, origin: str = "declaration", expected_agent_name: str | None = None) -> dict:
    """Validates a declaration object; raises INVALID_DECLARATION whose message and `data.field` name the field."""
    if isinstance(raw, dict) and "$schema" in raw:
        # `$schema` points editors at the JSON Schema; it is not part of the declaration.
        raw = {key: value for key, value in raw.items() if key != "$schema"}
    try:
        declaration = validate(raw, _SCHEMA)
    except SchemaError as error:
        raise _invalid(origin, f"invalid declaration: {error}", error.field) from None
    if expected_agent_name is not None and declaration["agent_name"] != expected_agent_name:
        raise _invalid(
            origin,
            f"agent_name: the declaration says {declaration['agent_name']!r} "
            f"but the runtime was built for {expected_agent_name!r}",
            "agent_name",
        )
    return declaration


def load_declaration(path: str | Path, expected_agent_name: str | None = None) -> dict:
    """Reads a JSON declaration file and validates it (see parse_declaration)."""
    origin = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise _invalid(origin, f"cannot read the declaration file ({error.strerror})", "(file)") from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as error:
        raise _invalid(origin, f"not valid JSON: {error}", "(file)") from None
    return parse_declaration(raw, origin, expected_agent_name)


def published_capabilities(declaration: dict) -> list[str]:
    """The capability names an instance is published under: its operations and what they serve."""
    names: set[str] = set()
    for operation, spec in declaration["capabilities"].items():
        names.add(operation)
        names.update(spec.get("serves", []))
    return sorted(names)


def is_operation_idempotent(declaration: dict, operation: str) -> bool:
    """Whether an operation may be retried elsewhere after its ack."""
    spec = declaration["capabilities"].get(operation, {})
    return bool(spec.get("idempotent", declaration.get("idempotent", False)))

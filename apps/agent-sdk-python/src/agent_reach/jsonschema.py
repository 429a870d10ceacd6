"""A JSON Schema (2020-12) checker for the keywords the declaration schema uses, standard library only.

The schema itself is generated from the TypeScript SDK's zod schema (declaration.schema.json), so both
SDKs accept exactly the same files. A keyword this checker does not know is an error, never skipped:
a schema change that needs a new keyword fails loudly in the tests instead of passing bad files.
"""

from __future__ import annotations

import copy
import re
from typing import Any

_KNOWN = {
    "$schema", "type", "properties", "required", "additionalProperties", "propertyNames", "pattern",
    "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "items",
    "minItems", "maxItems", "enum", "const", "default", "description", "minProperties", "maxProperties",
    "anyOf", "title", "$id",
}  # fmt: skip


class SchemaError(ValueError):
    """The first place where a value breaks the schema: `field` is its dotted path, `(root)` for the whole."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.reason = message


def _path(parts: list[str]) -> str:
    return ".".join(parts) if parts else "(root)"


def _type_ok(value: Any, kind: str) -> bool:
    if kind == "object":
        return isinstance(value, dict)
    if kind == "array":
        return isinstance(value, list)
    if kind == "string":
        return isinstance(value, str)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool) or (
            isinstance(value, float) and value.is_integer()
        )
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "null":
        return value is None
    raise SchemaError("(schema)", f"unknown type {kind!r}")


def validate(value: Any, schema: dict[str, Any]) -> Any:
    """Returns a copy of `value` with the schema's defaults filled in, or raises SchemaError."""
    result = copy.deepcopy(value)
    return _check(result, schema, [])


def _check(value: Any, schema: dict[str, Any], path: list[str]) -> Any:
    unknown = set(schema) - _KNOWN
    if unknown:
        raise SchemaError("(schema)", f"unsupported keywords {sorted(unknown)} at {_path(path)}")
    if "anyOf" in schema:
        errors = []
        for option in schema["anyOf"]:
            try:
                return _check(value, option, path)
            except SchemaError as error:
                errors.append(error)
        raise errors[0]
    kind = schema.get("type")
    if kind is not None:
        kinds = kind if isinstance(kind, list) else [kind]
        if not any(_type_ok(value, k) for k in kinds):
            raise SchemaError(_path(path), f"expected {' or '.join(kinds)}, got {type(value).__name__}")
    if "const" in schema and value != schema["const"]:
        raise SchemaError(_path(path), f"must be {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        raise SchemaError(_path(path), f"must be one of {schema['enum']}")
    if isinstance(value, str):
        _check_string(value, schema, path)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        _check_number(value, schema, path)
    elif isinstance(value, list):
        _check_array(value, schema, path)
    elif isinstance(value, dict):
        _check_object(value, schema, path)
    return value


def _check_string(value: str, schema: dict[str, Any], path: list[str]) -> None:
    if "minLength" in schema and len(value) < schema["minLength"]:
        raise SchemaError(_path(path), f"must be at least {schema['minLength']} characters")
    if "maxLength" in schema and len(value) > schema["maxLength"]:
        raise SchemaError(_path(path), f"must be at most {schema['maxLength']} characters")
    if "pattern" in schema and not re.search(schema["pattern"], value):
        raise SchemaError(_path(path), f"must match {schema['pattern']}")


def _check_number(value: float, schema: dict[str, Any], path: list[str]) -> None:
    if "minimum" in schema and value < schema["minimum"]:
        raise SchemaError(_path(path), f"must be at least {schema['minimum']}")
    if "maximum" in schema and value > schema["maximum"]:
        raise SchemaError(_path(path), f"must be at most {schema['maximum']}")
    if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
        raise SchemaError(_path(path), f"must be greater than {schema['exclusiveMinimum']}")
    if "exclusiveMaximum" in schema and value >= schema["exclusiveMaximum"]:
        raise SchemaError(_path(path), f"must be less than {schema['exclusiveMaximum']}")


def _check_array(value: list[Any], schema: dict[str, Any], path: list[str]) -> None:
    if "minItems" in schema and len(value) < schema["minItems"]:
        raise SchemaError(_path(path), f"must hold at least {schema['minItems']} items")
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        raise SchemaError(_path(path), f"must hold at most {schema['maxItems']} items")
    if "items" in schema:
        for index, item in enumerate(value):
            value[index] = _check(item, schema["items"], [*path, str(index)])


def _check_object(value: dict[str, Any], schema: dict[str, Any], path: list[str]) -> None:
    properties = schema.get("properties", {})
    for key in value:
        if "propertyNames" in schema:
            try:
                _check(key, schema["propertyNames"], [*path, key])
            except SchemaError as error:
                raise SchemaError(_path([*path, key]), f"key {key!r}: {error.reason}") from None
        if key not in properties:
            extra = schema.get("additionalProperties", True)
            if extra is False:
                raise SchemaError(_path([*path, key]), "unknown field")
            if isinstance(extra, dict):
                value[key] = _check(value[key], extra, [*path, key])
    for key in schema.get("required", []):
        if key not in value:
            raise SchemaError(_path([*path, key]), "required")
    if "minProperties" in schema and len(value) < schema["minProperties"]:
        raise SchemaError(_path(path), f"must hold at least {schema['minProperties']} entries")
    if "maxProperties" in schema and len(value) > schema["maxProperties"]:
        raise SchemaError(_path(path), f"must hold at most {schema['maxProperties']} entries")
    for key, sub in properties.items():
        if key in value:
            value[key] = _check(value[key], sub, [*path, key])
        elif "default" in sub:
            value[key] = _check(copy.deepcopy(sub["default"]), sub, [*path, key])

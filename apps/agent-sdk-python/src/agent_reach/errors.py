"""The one error type of the SDK: a code from the shared error-code list, a message, and data."""

from __future__ import annotations

from typing import Any

# HTTP statuses of the codes a Python agent answers with (the TypeScript SDK's ERROR_HTTP_STATUS).
HTTP_STATUS = {
    "BAD_REQUEST": 400,
    "INVALID_JSON": 400,
    "VALIDATION_FAILED": 422,
    "INVALID_DECLARATION": 422,
    "NOT_FOUND": 404,
    "PAYLOAD_TOO_LARGE": 413,
    "OVERLOADED": 429,
    "UNAVAILABLE": 503,
    "TIMEOUT": 504,
    "CANCELLED": 499,
    "AGENT_ERROR": 500,
    "INTERNAL": 500,
}


class ReachError(Exception):
    """An expected failure with a closed `code` (e.g. VALIDATION_FAILED), a message and optional data."""

    def __init__(self, code: str, message: str, data: dict[str, Any] | None = None, retryable: bool = False):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.data = data or {}
        self.retryable = retryable

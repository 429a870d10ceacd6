"""One small JSON-over-HTTP call with a timeout, on urllib: what the registry client and ReachClient share."""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any


@dataclass
class HttpAnswer:
    """A response that arrived: its status and its body parsed as JSON (None when it is not JSON)."""

    status: int
    body: Any


class Unreachable(Exception):
    """No HTTP answer: refused, reset, timed out or the name did not resolve."""


def call_json(
    method: str,
    url: str,
    body: Any = None,
    headers: dict[str, str] | None = None,
    timeout: float = 5.0,
) -> HttpAnswer:
    """Sends `body` as JSON (when given) and returns the status and JSON body of any answer, 4xx/5xx included."""
    data = None if body is None else json.dumps(body).encode("utf-8")
    request = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        request.add_header("content-type", "application/json")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return HttpAnswer(response.status, _parse(response.read()))
    except urllib.error.HTTPError as error:
        return HttpAnswer(error.code, _parse(error.read()))
    except (urllib.error.URLError, OSError, socket.timeout) as error:
        reason = getattr(error, "reason", error)
        raise Unreachable(f"{url}: {reason}") from None


def _parse(raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8")) if raw else None
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None

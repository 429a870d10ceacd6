"""The registry's agent API: register, heartbeat, deregister (ARCHITECTURE sections 4 and 11)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from .errors import ReachError
from .http_json import Unreachable, call_json

CALL_TIMEOUT_S = 5.0


@dataclass
class Registration:
    """The registry's confirmation: the instance id, its secret lease token and the heartbeat timing."""

    instance_id: str
    lease_token: str
    heartbeat_interval_s: float
    heartbeat_timeout_s: float
    declaration_version: str


@dataclass
class HeartbeatAnswer:
    """How the registry took one heartbeat: `ok`, `stale` (seq not newer), `lost` (re-register) or `rejected`."""

    kind: str
    state: str | None = None
    interval_s: float | None = None
    code: str = ""
    message: str = ""


def _retryable(status: int) -> bool:
    return status in (408, 429) or status >= 500


def _failure(status: int, body: Any) -> ReachError:
    code = body.get("code") if isinstance(body, dict) and isinstance(body.get("code"), str) else None
    message = body.get("message") if isinstance(body, dict) else None
    return ReachError(
        code or ("UNAVAILABLE" if status >= 500 else "BAD_REQUEST"),
        f"registry answered {status}: {message or 'no error body'}",
        {"status": status},
        retryable=_retryable(status),
    )


class RegistryClient:
    """Talks to one registry at `control_plane_url` (with a registry token when writes need one)."""

    def __init__(self, control_plane_url: str, registry_token: str | None = None):
        self.base = control_plane_url.rstrip("/")
        self.token = registry_token

    def register(self, request: dict) -> Registration:
        """`POST /v1/agents`; raises ReachError (`retryable` when waiting may help)."""
        headers = {"authorization": f"Bearer {self.token}"} if self.token else {}
        try:
            answer = call_json("POST", f"{self.base}/v1/agents", request, headers, CALL_TIMEOUT_S)
        except Unreachable as error:
            raise ReachError("UNAVAILABLE", f"registry unreachable: {error}", retryable=True) from None
        if answer.status >= 300 or not isinstance(answer.body, dict):
            raise _failure(answer.status, answer.body)
        body = answer.body
        return Registration(
            instance_id=body["instance_id"],
            lease_token=body["lease_token"],
            heartbeat_interval_s=body["heartbeat_interval_ms"] / 1000,
            heartbeat_timeout_s=body["heartbeat_timeout_ms"] / 1000,
            declaration_version=body["declaration_version"],
        )

    def heartbeat(self, instance_id: str, lease_token: str, seq: int, load: dict, timeout: float) -> HeartbeatAnswer:
        """`POST /v1/agents/{id}/heartbeat`; raises Unreachable when no answer came."""
        answer = call_json(
            "POST",
            f"{self.base}/v1/agents/{quote(instance_id, safe='')}/heartbeat",
            {"seq": seq, "load": load},
            {"authorization": f"Bearer {lease_token}"},
            timeout,
        )
        body = answer.body if isinstance(answer.body, dict) else {}
        if 200 <= answer.status < 300:
            interval = body.get("heartbeat_interval_ms")
            return HeartbeatAnswer("ok", body.get("state"), interval / 1000 if isinstance(interval, int) else None)
        code, message = str(body.get("code", "")), str(body.get("message", ""))
        # 410 means the registry forgot us; a refused lease token means the same: register afresh.
        if answer.status == 410 or code in ("UNKNOWN_INSTANCE", "LEASE_TOKEN_INVALID"):
            return HeartbeatAnswer("lost", code=code, message=message)
        return HeartbeatAnswer("stale" if answer.status == 409 else "rejected", code=code, message=message)

    def deregister(self, instance_id: str, lease_token: str) -> None:
        """`DELETE /v1/agents/{id}`; an instance the registry no longer knows counts as deregistered."""
        try:
            answer = call_json(
                "DELETE",
                f"{self.base}/v1/agents/{quote(instance_id, safe='')}",
                None,
                {"authorization": f"Bearer {lease_token}"},
                CALL_TIMEOUT_S,
            )
        except Unreachable as error:
            raise ReachError("UNAVAILABLE", f"registry unreachable: {error}", retryable=True) from None
        if answer.status >= 300 and answer.status not in (404, 410):
            raise _failure(answer.status, answer.body)

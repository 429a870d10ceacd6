"""ReachClient for Python callers: route by need, call over A2A streaming with the three timeouts
(connect 300 ms, ack 2 s, execution 30 s), fall back by the seed's rules, report outcomes.

    client = ReachClient("http://127.0.0.1:8701")
    summary = client.reach("summarize", {"text": text}, input_size=len(text), max_latency_sec=2)
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from . import a2a
from .errors import ReachError
from .http_json import Unreachable, call_json


@dataclass
class Attempt:
    """How one call to one candidate went."""

    instance_id: str
    acked: bool
    ok: bool
    failure: str | None
    latency_ms: float
    message: str = ""
    retryable: bool = True


@dataclass
class CallResult:
    """A finished call: the result, who served it, and every attempt made."""

    value: Any
    instance_id: str
    attempts: list[Attempt] = field(default_factory=list)


class RetryBudget:
    """Retries and fallbacks share a token bucket: each call earns `ratio` of a token, time adds a floor."""

    def __init__(self, ratio: float = 0.2, min_per_second: float = 1.0, max_tokens: float = 10.0):
        self.ratio, self.min_per_second, self.max_tokens = ratio, min_per_second, max_tokens
        self.tokens = max_tokens
        self.last = time.monotonic()
        self._lock = threading.Lock()

    def _refill(self) -> None:
        now = time.monotonic()
        self.tokens = min(self.max_tokens, self.tokens + (now - self.last) * self.min_per_second)
        self.last = now

    def deposit(self) -> None:
        with self._lock:
            self._refill()
            self.tokens = min(self.max_tokens, self.tokens + self.ratio)

    def try_withdraw(self) -> bool:
        with self._lock:
            self._refill()
            if self.tokens < 1:
                return False
            self.tokens -= 1
            return True


class _Failure(Exception):
    def __init__(self, failure: str, message: str, acked: bool, retryable: bool = True):
        super().__init__(message)
        self.failure, self.message, self.acked, self.retryable = failure, message, acked, retryable


class ReachClient:
    """Calls agents by capability through the registry's route API."""

    def __init__(
        self,
        control_plane_url: str,
        *,
        token: str | None = None,
        max_candidates: int = 3,
        connect_timeout_s: float = 0.3,
        ack_timeout_s: float = 2.0,
        execution_timeout_s: float = 30.0,
        report_outcomes: bool = True,
        caller: str = "python-client",
    ):
        self.base = control_plane_url.rstrip("/")
        self.token = token
        self.max_candidates = max_candidates
        self.connect_timeout_s = connect_timeout_s
        self.ack_timeout_s = ack_timeout_s
        self.execution_timeout_s = execution_timeout_s
        self.report_outcomes = report_outcomes
        self.caller = caller
        self.budget = RetryBudget()

    def _headers(self) -> dict[str, str]:
        return {"authorization": f"Bearer {self.token}"} if self.token else {}

    def route(self, operation: str, *, domain: str | None = None, input_size: int | None = None,
              max_latency_sec: float | None = None, output_format: str | None = None) -> list[dict]:  # fmt: skip
        """`POST /v1/route`: the ranked candidates for a need (seed article 2.2)."""
        constraints: dict[str, Any] = {}
        if input_size is not None:
            constraints["input_size"] = input_size
        if max_latency_sec is not None:
            constraints["max_latency_sec"] = max_latency_sec
        if output_format is not None:
            constraints["output_format"] = output_format
        query: dict[str, Any] = {"operation": operation, "constraints": constraints, "max_candidates": self.max_candidates}
        if domain is not None:
            query["domain"] = domain
        try:
            answer = call_json("POST", f"{self.base}/v1/route", query, self._headers(), 5.0)
        except Unreachable as error:
            raise ReachError("UNAVAILABLE", f"registry unreachable: {error}", retryable=True) from None
        if answer.status != 200 or not isinstance(answer.body, dict):
            body = answer.body if isinstance(answer.body, dict) else {}
            raise ReachError(str(body.get("code", "UNAVAILABLE")), f"route answered {answer.status}: {body.get('message', '')}")
        candidates = answer.body.get("candidates", [])
        if not candidates:
            raise ReachError("NO_CANDIDATES", f"no live agent offers {operation!r}")
        return candidates

    def reach(self, operation: str, payload: Any, **need: Any) -> Any:
        """Routes and calls; returns the result value (see `call` for the details)."""
        return self.call(operation, payload, **need).value

    def call(self, operation: str, payload: Any, *, request_id: str | None = None, context: Any = None, **need: Any) -> CallResult:
        """Calls the best candidate and falls back: always before the ack, after it only to idempotent ones."""
        request_id = request_id or str(uuid.uuid4())
        candidates = self.route(operation, **need)
        self.budget.deposit()
        attempts: list[Attempt] = []
        try:
            for index, candidate in enumerate(candidates):
                if index > 0 and not self.budget.try_withdraw():
                    break
                started = time.monotonic()
                try:
                    value = self._call_one(candidate, operation, payload, request_id, context)
                except _Failure as failed:
                    attempts.append(Attempt(candidate["instance_id"], failed.acked, False, failed.failure,
                                            (time.monotonic() - started) * 1000, failed.message, failed.retryable))  # fmt: skip
                    if failed.acked and not candidate.get("idempotent", False):
                        break  # the agent started: only an idempotent request may run elsewhere
                    if not failed.retryable:
                        break
                    continue
                attempts.append(Attempt(candidate["instance_id"], True, True, None, (time.monotonic() - started) * 1000))
                return CallResult(value, candidate["instance_id"], attempts)
        finally:
            self._report(operation, request_id, attempts)
        last = attempts[-1] if attempts else None
        raise ReachError(
            "UNAVAILABLE" if last is None or last.failure != "execution_timeout" else "TIMEOUT",
            f"{operation}: every candidate failed ({'; '.join(f'{a.instance_id}: {a.failure} {a.message}' for a in attempts)})",
            {"attempts": [a.__dict__ for a in attempts]},
        )

    # -- one attempt over A2A JSON-RPC streaming ---------------------------------------------------
    def _call_one(self, candidate: dict, operation: str, payload: Any, request_id: str, context: Any) -> Any:
        endpoint = candidate["endpoint"]
        url = f"{endpoint.get('scheme', 'http')}://{endpoint['host']}:{endpoint['port']}{a2a.JSONRPC_PATH}"
        deadline_ms = int(self.execution_timeout_s * 1000)
        reach = {"capability": operation, "deadline_ms": deadline_ms, "caller": self.caller}
        if context is not None:
            reach["context"] = context
        body = {"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage",
                "params": a2a.send_message_params(request_id, payload, reach)}  # fmt: skip
        parts = urlsplit(url)
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=self.connect_timeout_s)
        try:
            try:
                conn.connect()
            except OSError as error:
                raise _Failure("connect", str(error), acked=False) from None
            started = time.monotonic()
            # Kept: http.client hands the socket to the response and forgets it when the agent closes after the stream.
            sock = conn.sock
            sock.settimeout(self.ack_timeout_s)
            try:
                conn.request("POST", parts.path, json.dumps(body), {
                    "content-type": "application/json", "accept": "text/event-stream", "a2a-version": a2a.A2A_VERSION})  # fmt: skip
                response = conn.getresponse()
            except socket.timeout:
                raise _Failure("ack_timeout", f"no answer within {self.ack_timeout_s}s", acked=False) from None
            except OSError as error:
                raise _Failure("connect", str(error), acked=False) from None
            if response.status == 429:
                raise _Failure("overloaded", "the agent is overloaded", acked=False)
            if response.status >= 500:
                raise _Failure("http_5xx", f"answered {response.status}", acked=False)
            if not (response.getheader("content-type") or "").startswith("text/event-stream"):
                detail = response.read(2000).decode("utf-8", "replace")
                raise _Failure("agent_error", f"answered {response.status}: {detail}", acked=False, retryable=False)
            return self._read_stream(sock, response, started)
        finally:
            conn.close()

    def _read_stream(self, sock: socket.socket, response: http.client.HTTPResponse, started: float) -> Any:
        acked = False
        result: Any = None
        while True:
            remaining = self.execution_timeout_s - (time.monotonic() - started)
            timeout = self.ack_timeout_s if not acked else remaining
            if timeout <= 0:
                raise _Failure("execution_timeout", f"no result within {self.execution_timeout_s}s", acked=True)
            sock.settimeout(timeout)
            try:
                event = _next_sse_data(response)
            except socket.timeout:
                if acked:
                    raise _Failure("execution_timeout", f"no result within {self.execution_timeout_s}s", acked=True) from None
                raise _Failure("ack_timeout", f"no ack within {self.ack_timeout_s}s", acked=False) from None
            except OSError as error:
                raise _Failure("stream_broken", str(error), acked=acked) from None
            if event is None:
                raise _Failure("stream_broken", "the stream ended before the task did", acked=acked)
            if "error" in event:
                error = event["error"] or {}
                raise _Failure("agent_error", str(error.get("message")), acked=acked, retryable=not acked)
            update = event.get("result") or {}
            state, status = _state_of(update)
            acked = True  # the first task or status event is the ack
            if "artifactUpdate" in update:
                result = a2a.value_of_parts(update["artifactUpdate"].get("artifact", {}).get("parts"))
            if "task" in update and update["task"].get("artifacts"):
                result = a2a.value_of_parts(update["task"]["artifacts"][-1].get("parts"))
            if state == a2a.COMPLETED:
                return result
            if state in a2a.FINAL:
                meta = ((status or {}).get("message") or {}).get("metadata", {}).get(a2a.REACH_EXTENSION, {})
                text = a2a.value_of_parts(((status or {}).get("message") or {}).get("parts"))
                failure = "cancelled" if state == a2a.CANCELED else "execution_timeout" if meta.get("code") == "TIMEOUT" else "agent_error"
                raise _Failure(failure, f"{meta.get('code', state)}: {text}", acked=True, retryable=bool(meta.get("retryable", False)))

    def _report(self, operation: str, request_id: str, attempts: list[Attempt]) -> None:
        if not self.report_outcomes or not attempts:
            return
        outcomes = []
        for index, attempt in enumerate(attempts):
            outcome: dict[str, Any] = {
                "instance_id": attempt.instance_id, "request_id": request_id, "operation": operation,
                "ok": attempt.ok, "latency_ms": round(attempt.latency_ms, 3), "attempt": index + 1,
                "fallback": index > 0, "final": index == len(attempts) - 1,
            }  # fmt: skip
            if not attempt.ok:
                outcome["failure"] = attempt.failure
            outcomes.append(outcome)
        try:
            call_json("POST", f"{self.base}/v1/outcomes", {"outcomes": outcomes}, self._headers(), 2.0)
        except Unreachable:
            pass  # outcomes shape later routing; a call never fails for want of reporting them


def _state_of(update: dict) -> tuple[str | None, dict | None]:
    if "task" in update:
        status = update["task"].get("status") or {}
        return status.get("state"), status
    if "statusUpdate" in update:
        status = update["statusUpdate"].get("status") or {}
        return status.get("state"), status
    return None, None


def _next_sse_data(response: http.client.HTTPResponse) -> dict | None:
    """The next SSE event's `data` as JSON; None at the end of the stream. Handles CRLF and multi-line data."""
    data: list[str] = []
    while True:
        raw = response.readline()
        if not raw:
            return json.loads("\n".join(data)) if data else None
        line = raw.decode("utf-8").rstrip("\r\n")
        if line == "":
            if data:
                return json.loads("\n".join(data))
            continue
        if line.startswith("data:"):
            value = line[5:]
            data.append(value[1:] if value.startswith(" ") else value)

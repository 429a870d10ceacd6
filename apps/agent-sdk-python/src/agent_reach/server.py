"""The agent's HTTP server: `/health`, the agent card, and A2A v1.0 over JSON-RPC and HTTP+JSON (send,
stream, get task, cancel task). Standard library only: one thread per connection."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any, Callable, Iterator

from . import a2a
from .errors import ReachError

if TYPE_CHECKING:
    from .runtime import AgentRuntime

_TRACEPARENT = re.compile(r"^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$")
_REST_TASK = re.compile(r"^/tasks/([^/:]+)(:cancel)?$")


class RpcError(Exception):
    """A JSON-RPC error answer (code, message, data) and the HTTP status of the REST binding."""

    def __init__(self, code: int, message: str, http_status: int = 400, data: dict | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.http_status = http_status
        self.data = data or {}


def _rpc_error_of(error: ReachError) -> RpcError:
    """Our coded failures (overload, draining, bad input) as A2A errors that keep the code in `data`."""
    status = {"OVERLOADED": 429, "UNAVAILABLE": 503, "VALIDATION_FAILED": 400, "NOT_FOUND": 404}.get(error.code, 400)
    rpc_code = a2a.INVALID_PARAMS if status == 400 else a2a.INTERNAL_ERROR
    return RpcError(rpc_code, error.message, status, {"code": error.code, "retryable": error.retryable})


class AgentServer(ThreadingHTTPServer):
    """Serves one runtime; `port=0` picks a free port (read `server_port` after start)."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, runtime: AgentRuntime, host: str, port: int, max_body_bytes: int = 262_144):
        self.runtime = runtime
        self.max_body_bytes = max_body_bytes
        super().__init__((host, port), _Handler)
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self.serve_forever, name="agent-reach-http", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self.shutdown()
        self.server_close()


class _Handler(BaseHTTPRequestHandler):
    server: AgentServer
    protocol_version = "HTTP/1.1"
    # Idle keep-alive connections and slow headers are closed after this many seconds.
    timeout = 30

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        pass

    # -- plumbing ---------------------------------------------------------------------------------
    def _send_json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body, separators=(",", ":")).encode("utf-8")
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, code: str, message: str) -> None:
        self._send_json(status, {"code": code, "message": message})

    def _read_json(self) -> Any:
        length = self.headers.get("content-length")
        if length is None or not length.isdigit():
            raise RpcError(a2a.INVALID_REQUEST, "a body with content-length is required", 411)
        if int(length) > self.server.max_body_bytes:
            # Read nothing more: the connection closes after the answer.
            self.close_connection = True
            raise RpcError(
                a2a.INVALID_REQUEST, f"the body exceeds {self.server.max_body_bytes} bytes", 413, {"code": "PAYLOAD_TOO_LARGE"}
            )
        raw = self.rfile.read(int(length))
        try:
            return json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise RpcError(a2a.PARSE_ERROR, "the body is not valid JSON", 400, {"code": "INVALID_JSON"}) from None

    def _traceparent(self) -> str | None:
        header = self.headers.get("traceparent")
        return header if header and _TRACEPARENT.match(header) else None

    def _stream(self, events: Iterator[dict], wrap: Callable[[dict], dict]) -> None:
        """Writes each event as one SSE `data:` line; the connection closes at the end of the stream."""
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True
        try:
            for event in events:
                self.wfile.write(f"data: {json.dumps(wrap(event), separators=(',', ':'))}\n\n".encode("utf-8"))
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the caller went away; the task goes on

    # -- routes -----------------------------------------------------------------------------------
    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        path = self.path.split("?", 1)[0]
        runtime = self.server.runtime
        if path == "/health":
            view = runtime.health()
            self._send_json(200 if view["status"] == "ok" else 503, view)
        elif path == a2a.CARD_PATH:
            card = runtime.card
            if card is None:
                return self._error(503, "UNAVAILABLE", "the agent is starting")
            headers = {"etag": card.etag, "cache-control": "public, max-age=60"}
            if card.matches(self.headers.get("if-none-match")):
                self.send_response(304)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("content-length", "0")
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(card.bytes)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(card.bytes)
        elif path.startswith(a2a.REST_PATH + "/tasks/"):
            self._rest(path[len(a2a.REST_PATH) :], "GET")
        else:
            self._error(404, "NOT_FOUND", f"no route for GET {path}")

    def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
        path = self.path.split("?", 1)[0]
        if path == a2a.JSONRPC_PATH:
            self._jsonrpc()
        elif path.startswith(a2a.REST_PATH + "/"):
            self._rest(path[len(a2a.REST_PATH) :], "POST")
        else:
            self._error(404, "NOT_FOUND", f"no route for POST {path}")

    # -- A2A JSON-RPC binding ---------------------------------------------------------------------
    def _jsonrpc(self) -> None:
        rpc_id: Any = None
        try:
            body = self._read_json()
            if not isinstance(body, dict) or body.get("jsonrpc") != "2.0" or not isinstance(body.get("method"), str):
                raise RpcError(a2a.INVALID_REQUEST, "not a JSON-RPC 2.0 request")
            rpc_id = body.get("id")
            params = body.get("params") if isinstance(body.get("params"), dict) else {}
            method = body["method"]
            service = self.server.runtime.service
            if method == "SendStreamingMessage":
                task, replay = self._admit(params)
                events = task.follow() if replay else service.run_and_follow(task)
                return self._stream(events, lambda event: {"jsonrpc": "2.0", "id": rpc_id, "result": event})
            if method == "SendMessage":
                result = {"task": self._send_blocking(params)}
            elif method == "GetTask":
                result = service.task_view(self._task_id(params))
            elif method == "CancelTask":
                result = service.cancel(self._task_id(params))
            else:
                raise RpcError(a2a.METHOD_NOT_FOUND, f"unknown method {method!r}", 404)
            self._send_json(200, {"jsonrpc": "2.0", "id": rpc_id, "result": result})
        except RpcError as error:
            status = error.http_status if error.http_status in (411, 413, 429, 503) else 200
            self._send_json(
                status,
                {"jsonrpc": "2.0", "id": rpc_id, "error": {"code": error.code, "message": error.message, "data": error.data}},
            )

    # -- A2A HTTP+JSON binding --------------------------------------------------------------------
    def _rest(self, path: str, method: str) -> None:
        try:
            service = self.server.runtime.service
            task_route = _REST_TASK.match(path)
            if method == "POST" and path == "/message:stream":
                task, replay = self._admit(self._read_json())
                events = task.follow() if replay else service.run_and_follow(task)
                return self._stream(events, lambda event: event)
            if method == "POST" and path == "/message:send":
                return self._send_json(200, {"task": self._send_blocking(self._read_json())})
            if task_route and method == "GET" and not task_route.group(2):
                return self._send_json(200, service.task_view(task_route.group(1)))
            if task_route and method == "POST" and task_route.group(2):
                return self._send_json(200, service.cancel(task_route.group(1)))
            self._error(404, "NOT_FOUND", f"no route for {method} {a2a.REST_PATH}{path}")
        except RpcError as error:
            self._send_json(error.http_status, {"code": error.data.get("code", "BAD_REQUEST"), "message": error.message})

    # -- shared -----------------------------------------------------------------------------------
    def _admit(self, params: Any):
        if not isinstance(params, dict) or not isinstance(params.get("message"), dict):
            raise RpcError(a2a.INVALID_PARAMS, "params.message is required", 400, {"code": "VALIDATION_FAILED"})
        try:
            return self.server.runtime.service.admit(params["message"], self._traceparent())
        except ReachError as error:
            raise _rpc_error_of(error) from None

    def _send_blocking(self, params: Any) -> dict:
        task, replay = self._admit(params)
        configuration = params.get("configuration") if isinstance(params.get("configuration"), dict) else {}
        if not replay:
            self.server.runtime.service.run(task)
        if configuration.get("returnImmediately") is not True and configuration.get("blocking") is not False:
            task.wait_final()
        return task.snapshot()

    @staticmethod
    def _task_id(params: dict) -> str:
        task_id = params.get("id")
        if not isinstance(task_id, str) or not task_id:
            raise RpcError(a2a.INVALID_PARAMS, "params.id (the task id) is required", 400, {"code": "VALIDATION_FAILED"})
        return task_id


__all__ = ["AgentServer", "RpcError"]

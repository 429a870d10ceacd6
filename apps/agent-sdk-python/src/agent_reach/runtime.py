"""AgentRuntime: the agent side of Agent Reach for Python (seed article 4.1).

    runtime = AgentRuntime(agent_name="summarizer-v2", control_plane_url="http://127.0.0.1:8701",
                           capability_file="./capability.json")

    @runtime.agent_entrypoint
    def handle_request(request_id: str, payload: dict) -> dict:
        return {"summary": summarize(payload["text"])}

    if __name__ == "__main__":
        runtime.start()
"""

from __future__ import annotations

import json
import random
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

from .card import CardDocument, build_agent_card
from .declaration import load_declaration
from .errors import ReachError
from .heartbeat import HeartbeatThread
from .log import Logger
from .registry_client import RegistryClient, Registration
from .server import AgentServer
from .service import InvokeService
from .supervised import watch_supervisor


class AgentRuntime:
    """Validates the declaration, serves the card, `/health` and A2A, registers and waits for the
    registry's confirmation, heartbeats from its own thread, re-registers when forgotten (keeping its
    instance id when it can), backs off with jitter while the registry is down, deregisters on stop."""

    def __init__(
        self,
        agent_name: str,
        control_plane_url: str,
        capability_file: str | Path,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        registry_token: str | None = None,
        capacity: int = 8,
        drain_timeout_s: float = 10.0,
    ):
        self.agent_name = agent_name
        self.capability_file = capability_file
        self.host = host
        self.port = port
        self.capacity = capacity
        self.drain_timeout_s = drain_timeout_s
        self.registry = RegistryClient(control_plane_url, registry_token)
        self.logger = Logger(agent_name)
        self.handler: Callable | None = None
        self.declaration: dict | None = None
        self.card: CardDocument | None = None
        self.service: InvokeService | None = None
        self.registration: Registration | None = None
        self._server: AgentServer | None = None
        self._heartbeat: HeartbeatThread | None = None
        self._phase = "idle"
        self._stop_event = threading.Event()
        self._lock = threading.Lock()

    # -- the seed's decorator ---------------------------------------------------------------------
    def agent_entrypoint(self, handler: Callable) -> Callable:
        """Marks the handler: `handler(request_id, payload) -> dict` or `handler(ctx)`, plain or async."""
        if self.handler is not None and self.handler is not handler:
            raise ReachError("INVALID_CONFIG", "only one @agent_entrypoint per runtime")
        self.handler = handler
        return handler

    # -- lifecycle ----------------------------------------------------------------------------------
    @property
    def url(self) -> str | None:
        return f"http://{self.host}:{self._server.server_port}" if self._server else None

    def health(self) -> dict:
        status = {"ready": "ok", "draining": "draining", "stopped": "draining"}.get(self._phase, "starting")
        load = self.service.load() if self.service else {"in_flight": 0, "capacity": self.capacity}
        return {
            "status": status,
            "in_flight": load["in_flight"],
            "capacity": load["capacity"],
            "instance_id": self.registration.instance_id if self.registration else None,
        }

    def start(self) -> None:
        """Runs the agent as a process: starts, prints `{"ready": …}`, serves until SIGTERM/SIGINT, then
        deregisters and exits 0. A bad declaration or a refused registration prints why and exits 1."""
        signal.signal(signal.SIGTERM, self._on_signal)
        signal.signal(signal.SIGINT, self._on_signal)
        watch_supervisor(self._stop_event, self.logger)
        try:
            ready = self.start_background()
        except ReachError as error:
            if self._phase in ("draining", "stopped"):
                sys.exit(0)
            sys.stderr.write(f"cannot start: {error.code}: {error.message}\n")
            sys.exit(1)
        sys.stdout.write(json.dumps({"ready": ready}) + "\n")
        sys.stdout.flush()
        while not self._stop_event.wait(0.5):
            pass
        self.stop()
        sys.exit(0)

    def start_background(self) -> dict:
        """Starts serving and registers; returns once the registry confirmed. Raises ReachError."""
        if self.handler is None:
            raise ReachError("INVALID_CONFIG", "no handler: mark one with @runtime.agent_entrypoint")
        self.declaration = load_declaration(self.capability_file, self.agent_name)
        self._phase = "starting"
        self.service = InvokeService(self.declaration, self.handler, self.capacity, self._is_draining)
        self._server = AgentServer(self, self.host, self.port)
        self._server.start()
        port = self._server.server_port
        self.card = CardDocument.of(build_agent_card(self.declaration, self.host, port))
        self.logger.info("agent serving; registering", url=self.url)
        self._heartbeat = HeartbeatThread(self.registry, self.service.load, self._reregister, self.logger)
        registration = self._register_until_confirmed(previous=None)
        if registration is None:
            raise ReachError("CANCELLED", "stopped before the registry confirmed")
        self._phase = "ready"
        ready = {
            "instanceId": registration.instance_id,
            "url": self.url,
            "cardSha256": self.card.sha256,
            "heartbeatIntervalMs": int(registration.heartbeat_interval_s * 1000),
            "declarationVersion": registration.declaration_version,
        }
        self.logger.info("agent ready", **ready)
        return ready

    def stop(self) -> None:
        """Deregisters, lets running calls finish (up to `drain_timeout_s`), then stops serving."""
        with self._lock:
            if self._phase in ("draining", "stopped"):
                return
            self._phase = "draining"
        self._stop_event.set()
        if self._heartbeat:
            self._heartbeat.stop()
        if self.registration:
            try:
                self.registry.deregister(self.registration.instance_id, self.registration.lease_token)
                self.logger.info("deregistered", instance_id=self.registration.instance_id)
            except ReachError as error:
                self.logger.warn("deregistration failed; the lease will expire", error=error.message)
        deadline = time.monotonic() + self.drain_timeout_s
        while self.service and self.service.load()["in_flight"] > 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        if self.service:
            self.service.shutdown(wait=False)
        if self._server:
            self._server.stop()
        self._phase = "stopped"

    # -- internals ----------------------------------------------------------------------------------
    def _is_draining(self) -> bool:
        return self._phase in ("draining", "stopped")

    def _on_signal(self, signum: int, _frame: Any) -> None:
        self.logger.info("signal received; deregistering and draining", signal=signal.Signals(signum).name)
        self._stop_event.set()

    def _register_request(self, previous: Registration | None) -> dict:
        assert self.declaration is not None and self.card is not None and self._server is not None
        request: dict[str, Any] = {
            "declaration": self.declaration,
            "endpoint": {"host": self.host, "port": self._server.server_port, "scheme": "http", "alpn": ["http/1.1"]},
            "card_sha256": self.card.sha256,
        }
        if previous is not None:
            # After a lost lease: ask for the old id back, so routing history and metrics carry over.
            request["previous"] = {"instance_id": previous.instance_id, "lease_token": previous.lease_token}
        return request

    def _register_until_confirmed(self, previous: Registration | None) -> Registration | None:
        """Registers, retrying with exponential backoff and jitter while the registry is down."""
        delay = 0.2
        while not self._stop_event.is_set():
            try:
                registration = self.registry.register(self._register_request(previous))
            except ReachError as error:
                if not error.retryable:
                    raise
                self.logger.warn("registry not available; retrying", error=error.message, retry_in_s=round(delay, 2))
                self._stop_event.wait(delay * random.uniform(0.5, 1.5))
                delay = min(delay * 2, 5.0)
                continue
            self.registration = registration
            assert self._heartbeat is not None
            self._heartbeat.follow(registration)
            return registration
        return None

    def _reregister(self, lost: Registration) -> None:
        if self._is_draining():
            return
        try:
            registration = self._register_until_confirmed(previous=lost)
        except ReachError as error:
            self.logger.error("re-registration refused", code=error.code, error=error.message)
            return
        if registration is not None:
            kept = registration.instance_id == lost.instance_id
            self.logger.info("re-registered", instance_id=registration.instance_id, kept_id=kept)

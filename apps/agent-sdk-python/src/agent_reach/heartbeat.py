"""The heartbeat loop: its own thread, so a busy handler cannot starve it (seed article 4.1)."""

from __future__ import annotations

import threading
import time
from typing import Callable

from .http_json import Unreachable
from .log import Logger
from .registry_client import RegistryClient, Registration


class HeartbeatThread:
    """Sends `seq`-numbered heartbeats with load figures every interval; calls `on_lost` when the
    registry no longer knows the instance (the runtime then re-registers and calls `follow` again)."""

    def __init__(
        self,
        client: RegistryClient,
        load: Callable[[], dict],
        on_lost: Callable[[Registration], None],
        logger: Logger,
    ):
        self.client = client
        self.load = load
        self.on_lost = on_lost
        self.logger = logger
        self._lease: Registration | None = None
        self._seq = 0
        self._wake = threading.Event()
        self._stopped = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="agent-reach-heartbeat", daemon=True)
        self.beats = 0

    def follow(self, registration: Registration) -> None:
        """Heartbeats a new registration, seq from 1."""
        with self._lock:
            self._lease = registration
            self._seq = 0
        if not self._thread.is_alive():
            self._thread.start()
        self._wake.set()

    def stop(self) -> None:
        self._stopped.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)

    def _run(self) -> None:
        failures = 0
        elapsed = 0.0
        while not self._stopped.is_set():
            with self._lock:
                lease = self._lease
            if lease is None:
                self._wake.wait(0.5)
                self._wake.clear()
                continue
            # Wait out the interval (a new lease wakes us early and starts over).
            self._wake.clear()
            if self._wake.wait(max(0.0, lease.heartbeat_interval_s - elapsed)) or self._stopped.is_set():
                elapsed = 0.0
                continue
            with self._lock:
                if self._lease is not lease:
                    continue
                self._seq += 1
                seq = self._seq
            started = time.monotonic()
            try:
                answer = self.client.heartbeat(
                    lease.instance_id,
                    lease.lease_token,
                    seq,
                    self.load(),
                    timeout=min(max(lease.heartbeat_interval_s, 2.0), 5.0),
                )
            except Unreachable as error:
                elapsed = time.monotonic() - started
                failures += 1
                if failures == 1 or failures % 10 == 0:
                    self.logger.warn("registry unreachable for heartbeat; will keep trying", failures=failures, error=str(error))
                continue
            elapsed = time.monotonic() - started
            if failures:
                self.logger.info("registry reachable again", failures=failures)
            failures = 0
            if answer.kind == "ok":
                self.beats += 1
                if answer.interval_s:
                    lease.heartbeat_interval_s = answer.interval_s
            elif answer.kind == "lost":
                self.logger.warn("registry no longer knows this instance; re-registering", code=answer.code, seq=seq)
                with self._lock:
                    if self._lease is lease:
                        self._lease = None
                self.on_lost(lease)
            elif answer.kind == "stale":
                self.logger.warn("registry answered a heartbeat as stale", seq=seq, message=answer.message)
            else:
                self.logger.error("registry rejected a heartbeat", code=answer.code, message=answer.message)

"""A2A tasks of one agent: each call's state and events, and the request_id ledger that deduplicates calls."""

from __future__ import annotations

import threading
import time
import uuid
from collections import OrderedDict
from typing import Any, Iterator

from . import a2a


class Task:
    """One call as an A2A task. Its events (proto-JSON StreamResponses) are appended under a condition."""

    def __init__(self, request_id: str, context_id: str, operation: str, metadata: dict):
        self.id = str(uuid.uuid4())
        self.request_id = request_id
        self.context_id = context_id
        self.operation = operation
        self.metadata = metadata
        self.input: Any = None
        self.traceparent: str | None = None
        self.state = a2a.SUBMITTED
        self.status: dict = {"state": a2a.SUBMITTED, "timestamp": a2a.now_iso()}
        self.artifacts: list[dict] = []
        self.events: list[dict] = []
        self.cancel_requested = threading.Event()
        self._changed = threading.Condition()

    def snapshot(self) -> dict:
        """The task as `GetTask` returns it."""
        with self._changed:
            return {
                "id": self.id,
                "contextId": self.context_id,
                "status": dict(self.status),
                "artifacts": list(self.artifacts),
                "metadata": {a2a.REACH_EXTENSION: {"request_id": self.request_id, "operation": self.operation}},
            }

    @property
    def final(self) -> bool:
        return self.state in a2a.FINAL

    def set_state(self, state: str, message: dict | None = None) -> bool:
        """Moves to `state` unless the task already ended; returns whether it moved."""
        with self._changed:
            if self.state in a2a.FINAL:
                return False
            self.state = state
            self.status = {"state": state, "timestamp": a2a.now_iso()}
            if message is not None:
                self.status["message"] = message
            update = {"taskId": self.id, "contextId": self.context_id, "status": dict(self.status)}
            self.events.append({"statusUpdate": update})
            self._changed.notify_all()
            return True

    def complete(self, result: Any) -> bool:
        """Adds the result as the task's artifact and completes it (unless it already ended)."""
        with self._changed:
            if self.state in a2a.FINAL:
                return False
            artifact = {"artifactId": f"{self.id}-result", "name": "result", "parts": a2a.parts_of(result)}
            self.artifacts.append(artifact)
            self.events.append(
                {"artifactUpdate": {"taskId": self.id, "contextId": self.context_id, "artifact": artifact}}
            )
        return self.set_state(a2a.COMPLETED)

    def fail(self, code: str, message: str, retryable: bool = False) -> bool:
        """Ends the task as failed; the reason travels in the status message, the code in our metadata."""
        status_message = {
            "messageId": str(uuid.uuid4()),
            "role": "ROLE_AGENT",
            "parts": [{"text": message, "mediaType": "text/plain"}],
            "metadata": {a2a.REACH_EXTENSION: {"code": code, "retryable": retryable}},
        }
        state = a2a.CANCELED if code == "CANCELLED" else a2a.FAILED
        return self.set_state(state, status_message)

    def follow(self, stop: threading.Event | None = None) -> Iterator[dict]:
        """The task's snapshot, then each later event, until the task ends (or `stop` is set)."""
        with self._changed:
            seen = len(self.events)
        yield {"task": self.snapshot()}
        while True:
            with self._changed:
                while seen == len(self.events) and self.state not in a2a.FINAL:
                    if stop is not None and stop.is_set():
                        return
                    self._changed.wait(0.5)
                pending = self.events[seen:]
                seen = len(self.events)
                ended = self.state in a2a.FINAL
            yield from pending
            if ended:
                return

    def wait_final(self, timeout: float | None = None) -> bool:
        """Blocks until the task ended; returns whether it did within `timeout`."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._changed:
            while self.state not in a2a.FINAL:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return False
                self._changed.wait(remaining)
            return True


class TaskStore:
    """Tasks by id and by request_id (the idempotency key): a bounded LRU; ended tasks expire after a TTL."""

    def __init__(self, max_entries: int = 10_000, ttl_s: float = 600.0):
        self.max_entries = max_entries
        self.ttl_s = ttl_s
        self._lock = threading.Lock()
        self._by_request: OrderedDict[str, tuple[Task, float | None]] = OrderedDict()
        self._by_id: dict[str, Task] = {}

    def admit(self, request_id: str, context_id: str, operation: str, metadata: dict) -> tuple[Task, bool]:
        """The task for `request_id`: the one already known (replay=True) or a new one."""
        with self._lock:
            self._expire()
            known = self._by_request.get(request_id)
            if known is not None:
                self._by_request.move_to_end(request_id)
                return known[0], True
            task = Task(request_id, context_id, operation, metadata)
            self._by_request[request_id] = (task, None)
            self._by_id[task.id] = task
            while len(self._by_request) > self.max_entries:
                _, (old, _) = self._by_request.popitem(last=False)
                self._by_id.pop(old.id, None)
            return task, False

    def finished(self, task: Task) -> None:
        """Starts the TTL of an ended task."""
        with self._lock:
            if task.request_id in self._by_request:
                self._by_request[task.request_id] = (task, time.monotonic() + self.ttl_s)

    def get_by_request(self, request_id: str) -> Task | None:
        with self._lock:
            self._expire()
            known = self._by_request.get(request_id)
            return known[0] if known is not None else None

    def get(self, task_id: str) -> Task | None:
        with self._lock:
            self._expire()
            return self._by_id.get(task_id)

    def _expire(self) -> None:
        now = time.monotonic()
        for request_id, (task, expires) in list(self._by_request.items()):
            if expires is not None and expires <= now:
                del self._by_request[request_id]
                self._by_id.pop(task.id, None)

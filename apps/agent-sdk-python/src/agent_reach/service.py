"""Runs calls: admits A2A messages as tasks (deduplicated by request_id), runs the handler on a worker
pool, enforces the caller's deadline and cancel, and keeps the load figures heartbeats report."""

from __future__ import annotations

import asyncio
import inspect
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from . import a2a
from .errors import ReachError
from .server import RpcError
from .tasks import Task, TaskStore


@dataclass
class InvokeContext:
    """What a handler that takes one argument receives."""

    request_id: str
    input: Any
    capability: str
    context: Any = None
    traceparent: str | None = None
    deadline_ms: int | None = None
    caller: str | None = None
    cancelled: threading.Event = field(default_factory=threading.Event)


def _calls_with_context(handler: Callable) -> bool:
    """Whether the handler is `handler(ctx)` rather than the seed's `handler(request_id, payload)`."""
    params = [
        p
        for p in inspect.signature(handler).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
    ]
    return len(params) == 1


class InvokeService:
    """Turns A2A messages into tasks and runs them; `capacity` calls run at once, as many more may queue."""

    def __init__(self, declaration: dict, handler: Callable, capacity: int, draining: Callable[[], bool]):
        self.declaration = declaration
        self.handler = handler
        self.with_context = _calls_with_context(handler)
        self.capacity = capacity
        self.draining = draining
        self.tasks = TaskStore()
        self._pool = ThreadPoolExecutor(max_workers=capacity, thread_name_prefix="agent-reach-call")
        self._lock = threading.Lock()
        self.in_flight = 0
        self.queued = 0

    def load(self) -> dict:
        """The figures a heartbeat carries."""
        with self._lock:
            return {"in_flight": self.in_flight, "capacity": self.capacity, "queue": self.queued}

    def admit(self, message: dict, traceparent: str | None) -> tuple[Task, bool]:
        """The task for this message: a known request_id (messageId) replays its task; raises ReachError."""
        request_id = message.get("messageId")
        if not isinstance(request_id, str) or not 1 <= len(request_id) <= 128:
            raise ReachError("VALIDATION_FAILED", "message.messageId (the request_id) must be 1-128 characters")
        if not isinstance(message.get("parts", []), list):
            raise ReachError("VALIDATION_FAILED", "message.parts must be a list")
        reach = a2a.reach_metadata(message)
        operation = reach.get("capability") or next(iter(self.declaration["capabilities"]))
        if operation not in self.declaration["capabilities"]:
            raise ReachError("VALIDATION_FAILED", f"this agent has no operation {operation!r}")
        known = self.tasks.get_by_request(request_id)
        if known is not None:
            return known, True
        if self.draining():
            raise ReachError("UNAVAILABLE", "the agent is draining", retryable=True)
        with self._lock:
            if self.in_flight + self.queued >= 2 * self.capacity:
                raise ReachError("OVERLOADED", f"{self.in_flight} calls running, {self.queued} queued", retryable=True)
            self.queued += 1
        context_id = message.get("contextId") if isinstance(message.get("contextId"), str) else str(uuid.uuid4())
        task, replay = self.tasks.admit(request_id, context_id, operation, reach)
        if replay:
            with self._lock:
                self.queued -= 1
            return task, True
        task.input = a2a.value_of_parts(message.get("parts"))
        task.traceparent = traceparent
        return task, False

    def run(self, task: Task) -> None:
        """Starts the handler for a newly admitted task on the pool, with its deadline."""
        deadline_ms = task.metadata.get("deadline_ms")
        if isinstance(deadline_ms, int) and deadline_ms > 0:
            timer = threading.Timer(deadline_ms / 1000, self._expire, args=(task, deadline_ms))
            timer.daemon = True
            timer.start()
        self._pool.submit(self._execute, task)

    def run_and_follow(self, task: Task) -> Iterator[dict]:
        """The task's events from its first snapshot (the ack) to its end, with the handler started."""
        events = task.follow()
        yield next(events)  # the snapshot goes out before the handler can take the CPU
        self.run(task)
        yield from events

    def task_view(self, task_id: str) -> dict:
        task = self.tasks.get(task_id)
        if task is None:
            raise RpcError(a2a.TASK_NOT_FOUND, f"no task {task_id}", 404, {"code": "NOT_FOUND"})
        return task.snapshot()

    def cancel(self, task_id: str) -> dict:
        task = self.tasks.get(task_id)
        if task is None:
            raise RpcError(a2a.TASK_NOT_FOUND, f"no task {task_id}", 404, {"code": "NOT_FOUND"})
        if task.state in a2a.TERMINAL:
            raise RpcError(a2a.TASK_NOT_CANCELABLE, f"task {task_id} already ended ({task.state})", 409)
        task.cancel_requested.set()
        if task.fail("CANCELLED", "cancelled by the caller"):
            self.tasks.finished(task)
        return task.snapshot()

    def shutdown(self, wait: bool) -> None:
        self._pool.shutdown(wait=wait, cancel_futures=False)

    def _expire(self, task: Task, deadline_ms: int) -> None:
        task.cancel_requested.set()
        if task.fail("TIMEOUT", f"the caller's deadline of {deadline_ms} ms passed", retryable=True):
            self.tasks.finished(task)

    def _execute(self, task: Task) -> None:
        with self._lock:
            self.queued -= 1
            self.in_flight += 1
        try:
            if task.final:
                return  # cancelled or expired while queued
            task.set_state(a2a.WORKING)
            result = self._call(task)
            task.complete(result)
        except ReachError as error:
            task.fail(error.code, error.message, error.retryable)
        except Exception as error:  # noqa: BLE001 - a handler's bug is the call's failure, not the agent's
            task.fail("AGENT_ERROR", f"{type(error).__name__}: {error}")
        finally:
            with self._lock:
                self.in_flight -= 1
            self.tasks.finished(task)

    def _call(self, task: Task) -> Any:
        if self.with_context:
            ctx = InvokeContext(
                request_id=task.request_id,
                input=task.input,
                capability=task.operation,
                context=task.metadata.get("context"),
                traceparent=task.traceparent,
                deadline_ms=task.metadata.get("deadline_ms"),
                caller=task.metadata.get("caller"),
                cancelled=task.cancel_requested,
            )
            outcome = self.handler(ctx)
        else:
            payload = task.input if isinstance(task.input, dict) else {"input": task.input}
            outcome = self.handler(task.request_id, payload)
        if inspect.isawaitable(outcome):
            outcome = asyncio.run(_awaited(outcome))
        return outcome


async def _awaited(awaitable: Any) -> Any:
    return await awaitable

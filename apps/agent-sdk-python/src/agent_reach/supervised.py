"""Stopping with a Node supervisor (`pnpm start`): the IPC channel Node gives a child (`NODE_CHANNEL_FD`)
closes when the supervisor is gone, even by SIGKILL; then the agent stops itself, after the processes
the supervisor said it must outlive (`{"exitAfter": pid}` messages), as scripts/exit-with-parent.mjs does."""

from __future__ import annotations

import json
import os
import threading
import time

from .log import Logger

#: How long an orphaned agent waits for the processes it must outlive.
OUTLIVE_AT_MOST_S = 10.0


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
            text = stat.read()
        return text[text.rindex(")") + 2] != "Z"  # a zombie has stopped
    except OSError:
        return True


def watch_supervisor(stop: threading.Event, logger: Logger) -> None:
    """Sets `stop` when the supervisor's channel closes; does nothing without one."""
    fd = os.environ.get("NODE_CHANNEL_FD")
    if fd is None or not fd.isdigit():
        return
    outlive: set[int] = set()

    def watch() -> None:
        try:
            with os.fdopen(int(fd), "rb", buffering=0) as channel:
                buffer = b""
                while chunk := channel.read(4096):
                    buffer += chunk
                    *lines, buffer = buffer.split(b"\n")
                    for line in lines:
                        try:
                            message = json.loads(line)
                        except ValueError:
                            continue
                        if isinstance(message, dict) and isinstance(message.get("exitAfter"), int):
                            outlive.add(message["exitAfter"])
        except OSError:
            pass
        deadline = time.monotonic() + OUTLIVE_AT_MOST_S
        while any(_running(pid) for pid in outlive) and time.monotonic() < deadline:
            time.sleep(0.1)
        logger.info("supervisor gone; stopping")
        stop.set()

    threading.Thread(target=watch, name="agent-reach-supervisor", daemon=True).start()

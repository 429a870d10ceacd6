"""One JSON line per log record on stderr, in the shape the TypeScript SDK's agents write."""

from __future__ import annotations

import json
import sys
import threading
from typing import Any

from .a2a import now_iso


class Logger:
    """`logger.info("msg", key=value)` → `{"time","level","name","msg",...}` on stderr."""

    _lock = threading.Lock()

    def __init__(self, name: str, stream: Any = None):
        self.name = name
        self.stream = stream or sys.stderr

    def _write(self, level: str, msg: str, fields: dict[str, Any]) -> None:
        record = {"time": now_iso(), "level": level, "name": self.name, "msg": msg, **fields}
        line = json.dumps(record, default=str, ensure_ascii=False)
        with self._lock:
            try:
                self.stream.write(line + "\n")
                self.stream.flush()
            except (OSError, ValueError):
                pass  # a closed stderr must not break the agent

    def info(self, msg: str, **fields: Any) -> None:
        self._write("info", msg, fields)

    def warn(self, msg: str, **fields: Any) -> None:
        self._write("warn", msg, fields)

    def error(self, msg: str, **fields: Any) -> None:
        self._write("error", msg, fields)

"""The seed article's import path: `from agent_reach.sdk import AgentRuntime`."""

from .client import CallResult, ReachClient
from .declaration import declaration_schema, load_declaration, parse_declaration
from .errors import ReachError
from .runtime import AgentRuntime
from .service import InvokeContext

__all__ = [
    "AgentRuntime",
    "CallResult",
    "InvokeContext",
    "ReachClient",
    "ReachError",
    "declaration_schema",
    "load_declaration",
    "parse_declaration",
]

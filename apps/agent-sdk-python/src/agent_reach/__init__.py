"""Agent Reach for Python agents: `from agent_reach.sdk import AgentRuntime, ReachClient`."""

from .sdk import *  # noqa: F403
from .sdk import __all__  # noqa: F401

__version__ = "0.1.0"

"""The resource-manager protocol and the adapter registry."""

from .protocol import RecordWarning, ResourceManager, RMError, StartFailure

__all__ = ["RMError", "RecordWarning", "ResourceManager", "StartFailure"]

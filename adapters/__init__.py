"""Resource-manager adapters, imported as maui_py.adapters (see docs/architecture.md)."""

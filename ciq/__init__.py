"""CIQ project package: settings, URLs, workspaces and membership, role backends."""

__version__ = "0.1.0"

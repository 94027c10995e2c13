"""MCP both ways: ``edgeagent mcp serve`` and the client of ``[mcp.servers.<name>]``."""

"""The chouette server: HTTP, WebSocket and SSE over the event store (see docs/design.md)."""

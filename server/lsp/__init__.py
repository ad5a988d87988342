"""Python language features: a language server per editor connection, bridged to a websocket."""

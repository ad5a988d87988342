"""Integrated terminals: a shell on a PTY in the project folder, one websocket per terminal."""

"""The HTML shell around the built web UI, and the static bundle."""

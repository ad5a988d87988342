"""The device bridge: the protocol shared by the server hub and the on-device agent."""

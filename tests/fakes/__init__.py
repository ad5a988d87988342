"""Local emulators of outside services, speaking their real wire protocols."""

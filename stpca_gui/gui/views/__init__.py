"""Qt widgets wrapping the Qt-free plotting builders, linked through the shared state."""

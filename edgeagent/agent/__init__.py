"""The agent loop: generate, parse calls, validate, execute, feed results back."""

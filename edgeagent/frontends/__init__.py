"""Front ends: how prompts arrive (MQTT, the Unix socket) and answers leave."""

"""maui-py commands: `maui-py <command>` (main.py) and the Maui-named console scripts."""

"""edgeagent: a local LLM in charge of real hardware.

Plugin authors need only :mod:`edgeagent.tools`. Importing this package pulls in no
hardware or accelerator library.
"""

__version__ = "0.1.0"

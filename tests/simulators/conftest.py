"""Make the first-party packages importable from a plain checkout.

After ``pip install -e .`` they already are and this does nothing.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
for folder in ("plugins", "simulators"):
    if str(ROOT / folder) not in sys.path:
        sys.path.append(str(ROOT / folder))

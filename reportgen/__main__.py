"""`python -m reportgen` runs the CLI."""

from __future__ import annotations

import sys

from reportgen.cli.main import main

sys.exit(main())

"""`python -m reportgen.reconstruct SEED_TXT OUT_DIR` regenerates the reconstructed run files."""

from __future__ import annotations

from reportgen.reconstruct.seed import main

raise SystemExit(main())

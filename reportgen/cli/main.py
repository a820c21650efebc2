"""Command line: parse options, call one library function, print its result, map errors to exits.

Exit codes: 0 ok, 1 check or lint failure, 2 bad input or usage. The subcommands are in
`commands`, the parser in `parser`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from reportgen.cli.commands import EXIT_INPUT, EXIT_OK, print_problems
from reportgen.cli.parser import build_parser
from reportgen.errors import InputError
from reportgen.fileio import check_caps


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `reportgen` console script."""
    # reportgen does no linear algebra. numpy (imported by matplotlib for the charts, and for
    # large cells) would start OpenBLAS's threads, one per core, at import: about 0.1 s of CPU
    # that a fresh build spends while its workers compete for the cores.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    args = build_parser().parse_args(argv)
    try:
        check_caps()  # a size cap set to something not a size: one error before any work
        return int(args.func(args))
    except InputError as exc:
        print_problems(exc.problems, False, sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`reportgen metrics --json | head`): stop quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    except OSError as exc:
        # Writing outputs failed (disk full, permissions); the build left earlier outputs as
        # they were.
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"reportgen: {where}{exc.strerror or exc}", file=sys.stderr)
        return EXIT_INPUT


if __name__ == "__main__":
    sys.exit(main())

"""`reportgen serve` on the command line: its help, its refusals, and a real `reportgen serve`
process stopped with Ctrl-C (SIGINT)."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from reportgen.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
SMALL = ROOT / "tests" / "articles" / "small"
WAIT_S = 60.0


def test_serve_help_has_examples(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["serve", "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "examples:\n  reportgen serve runs/my-article\n" in out
    assert "127.0.0.1" in out and "--port" in out


def test_serve_takes_no_other_address(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["serve", str(SMALL), "--host", "0.0.0.0"])
    assert done.value.code == 2
    assert "unrecognized arguments: --host 0.0.0.0" in capsys.readouterr().err


def test_serve_takes_only_a_port(capsys: pytest.CaptureFixture[str]) -> None:
    for port in ("65536", "-1", "http"):
        with pytest.raises(SystemExit) as done:
            main(["serve", str(SMALL), "--port", port])
        assert done.value.code == 2
        assert f"argument --port: {port!r} is not a port (0 to 65535)" in capsys.readouterr().err


def test_serve_refuses_a_folder_that_is_no_article(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", str(tmp_path / "nosuch"), "--port", "0"]) == 2
    assert capsys.readouterr().err == f"{tmp_path / 'nosuch'}:1:1 /: no such article folder\n"
    assert main(["serve", str(tmp_path), "--port", "0"]) == 2
    manifest = tmp_path / "article.toml"
    assert capsys.readouterr().err == f"{manifest}:1:1 /: no article.toml in {tmp_path}\n"


def test_serve_in_a_process_leaves_its_signal_handlers_as_it_found_them(tmp_path: Path) -> None:
    """A caller of `main` in its own process (a test runner, a script) keeps its handlers."""
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    assert main(["serve", str(tmp_path / "nosuch"), "--port", "0"]) == 2
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before


@pytest.mark.process
def test_reportgen_serve_serves_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    article = tmp_path / "small"
    shutil.copytree(SMALL, article)
    cmd = [sys.executable, "-m", "reportgen", "serve", str(article), "--port", "0"]
    server = subprocess.Popen(
        cmd,
        cwd=ROOT,
        env=os.environ,
        stderr=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        # As a shell starts a background job (`reportgen serve ... &`): SIGINT ignored.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    try:
        assert server.stderr is not None
        first = server.stderr.readline()  # it says where it listens as soon as it does
        found = re.fullmatch(r"serving .* at (http://127\.0\.0\.1:\d+/)\n", first)
        assert found, first
        page = httpx.get(found.group(1), timeout=WAIT_S)  # waits for the first build
        assert page.status_code == 200 and "<h1" in page.text
        deadline = time.monotonic() + WAIT_S
        while "built in" not in server.stderr.readline():  # the build's line, once it is out
            assert time.monotonic() < deadline
    finally:
        server.send_signal(signal.SIGINT)
        try:
            out, err = server.communicate(timeout=WAIT_S)
        except subprocess.TimeoutExpired:  # Ctrl-C did not stop it: no process left behind
            server.kill()
            server.communicate()
            raise
    assert server.returncode == 0
    assert "Traceback" not in err and err.endswith("stopped\n"), err
    assert out == ""

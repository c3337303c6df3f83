"""Real servers for tests: daphne processes with the production settings on a temporary
SQLite file database, and ``manage.py`` commands on the same database (the pieces of
``tests/test_browser.py``'s ``stack`` fixture, for tests that start several processes)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from django.conf import settings

BASE = Path(settings.BASE_DIR)
DAPHNE = Path(sys.executable).parent / "daphne"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (at the time of asking)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen, seconds: float = 30) -> None:
    """Return once something accepts on ``port``; raise if ``process`` exits first or
    ``seconds`` pass."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"process exited with {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    raise TimeoutError(f"nothing listens on port {port}")


def prod_env(tmp: Path, **extra: str) -> dict[str, str]:
    """The environment `make run` serves with (production settings, plain HTTP on
    127.0.0.1) on the SQLite file ``tmp/db.sqlite3``, without ``REDIS_URL`` unless
    ``extra`` sets it."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "ciq.settings.prod", "HTTPS": "false",
           "SECRET_KEY_FILE": str(tmp / "secret_key"),
           "DATABASE_URL": f"sqlite:///{tmp / 'db.sqlite3'}", "MEDIA_ROOT": str(tmp / "media")}
    env.pop("REDIS_URL", None)
    return {**env, **extra}


def manage(env: dict[str, str], *args: str, timeout: float = 300) -> str:
    """Run ``manage.py *args`` in ``env``; its stdout (raises ``CalledProcessError``)."""
    return subprocess.run([sys.executable, "manage.py", *args], cwd=BASE, env=env, check=True,
                          capture_output=True, text=True, timeout=timeout).stdout


def daphne_start(env: dict[str, str], log: Path) -> tuple[subprocess.Popen, int]:
    """One daphne process on a free port, its output in ``log``; ``(process, port)``
    once it listens."""
    port = free_port()
    with log.open("w") as out:
        process = subprocess.Popen([str(DAPHNE), "-b", "127.0.0.1", "-p", str(port),
                                    "ciq.asgi:application"],
                                   cwd=BASE, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_for_port(port, process)
    except Exception:
        processes_stop([process])
        raise
    return process, port


def processes_stop(processes: list[subprocess.Popen]) -> None:
    """Terminate ``processes`` and wait for them (killed after 10 s)."""
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

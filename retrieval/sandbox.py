"""Extraction with a time and memory limit enforced outside the parsers (issue 11,
finding 4: one small hostile file held the only worker for minutes and gigabytes).

Each file is extracted and chunked in a child process forked from the ingesting one
(fork: the parsers are imported before the first fork,
:func:`retrieval.extract.parsers_import`, so a file costs a few milliseconds more, not an
interpreter start). The child sets its own limits before it reads a byte:

- address space (``RLIMIT_AS``): what the parent already maps plus
  ``INGEST_MAX_MEMORY_MB``, so an allocation past it fails with ``MemoryError``;
- CPU time (``RLIMIT_CPU``): ``INGEST_TIMEOUT_SECONDS``, then SIGXCPU (SIGKILL a second
  later);

and the parent waits at most ``INGEST_TIMEOUT_SECONDS`` of wall-clock time for the
answer, then kills the child. Every way out is an :class:`ExtractionError` with a
reason a person can act on. The child never touches the database.
"""

from __future__ import annotations

import faulthandler
import multiprocessing
import os
import resource
import signal
from collections.abc import Callable
from pathlib import Path

from django.conf import settings

from retrieval.chunking import ChunkSpan, chunk_text
from retrieval.extract import ExtractedText, ExtractionError, extract_text, parsers_import

_REASON_CHARS = 300


def extract_and_chunk(path: Path) -> tuple[ExtractedText, list[ChunkSpan]]:
    """Extraction then chunking of one file (what the child runs)."""
    extracted = extract_text(path)
    return extracted, chunk_text(extracted.text, extracted.page_starts)


def extract_bounded(path: Path, work: Callable = extract_and_chunk):
    """``work(path)`` (default :func:`extract_and_chunk`) in a child process under the
    ingestion time and memory limits; returns what it returns.

    Raises :class:`ExtractionError` with the child's own reason, or "took too long: over
    the N s limit (INGEST_TIMEOUT_SECONDS)", "needs too much memory: over the N MB limit
    (INGEST_MAX_MEMORY_MB)", "the parser crashed (…)". With ``INGEST_ISOLATE`` false,
    ``work`` runs in this process, unbounded.
    """
    if not settings.INGEST_ISOLATE:
        return work(path)
    parsers_import()
    timeout = settings.INGEST_TIMEOUT_SECONDS
    memory = settings.INGEST_MAX_MEMORY_MB * 1024 * 1024
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(work, str(path), sender, memory, timeout),
                            daemon=True, name="ciq-extract")
    child.start()
    sender.close()
    try:
        if not receiver.poll(timeout):
            raise ExtractionError(_too_long(timeout))
        try:
            kind, value = receiver.recv()
        except (EOFError, OSError):
            child.join(5)
            raise ExtractionError(_died(child.exitcode, timeout)) from None
    finally:
        receiver.close()
        if child.is_alive():
            child.kill()
        child.join()
    if kind == "ok":
        return value
    if kind == "memory":
        raise ExtractionError(_too_big())
    raise ExtractionError(value)


def _too_long(timeout: float) -> str:
    return f"took too long: over the {timeout:g} s limit (INGEST_TIMEOUT_SECONDS)"


def _too_big() -> str:
    return (f"needs too much memory: over the {settings.INGEST_MAX_MEMORY_MB} MB limit "
            "(INGEST_MAX_MEMORY_MB)")


def _died(exitcode: int | None, timeout: float) -> str:
    if exitcode in (-signal.SIGXCPU, -signal.SIGKILL):
        # Over the CPU limit, or killed by the kernel when memory ran out.
        return _too_long(timeout) if exitcode == -signal.SIGXCPU else _too_big()
    return f"the parser crashed (exit code {exitcode})"


def _address_space() -> int:
    """Bytes of virtual memory this process maps now (``VmSize``), 0 if unknown."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return 0


def _limit(kind: int, soft: int, hard_margin: int) -> None:
    """Lower the soft limit of ``kind`` to ``soft`` (and the hard one to ``soft +
    hard_margin``), never above a hard limit already set."""
    _, hard = resource.getrlimit(kind)
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
        new_hard = min(soft + hard_margin, hard)
    else:
        new_hard = soft + hard_margin if hard_margin else resource.RLIM_INFINITY
    resource.setrlimit(kind, (soft, new_hard))


def _child(work: Callable, path: str, sender, memory: int, timeout: float) -> None:
    """Set the limits, run ``work``, send ``(kind, value)``: ``("ok", result)``,
    ``("error", reason)`` or ``("memory", "")``."""
    faulthandler.disable()  # a crash is reported by its exit code, not a dump on stderr
    try:
        if memory:
            _limit(resource.RLIMIT_AS, _address_space() + memory, 0)
        seconds = max(1, int(timeout + 0.999))
        _limit(resource.RLIMIT_CPU, seconds, 1)
        answer = ("ok", work(Path(path)))
    except ExtractionError as exc:
        answer = ("error", exc.reason)
    except MemoryError:
        answer = ("memory", "")
    except Exception as exc:  # a parser choked: report it, as document_ingest does
        reason = f"could not be read ({type(exc).__name__}: {exc})"
        if len(reason) > _REASON_CHARS:
            reason = reason[: _REASON_CHARS - 1].rstrip() + "…"
        answer = ("error", reason)
    try:
        sender.send(answer)
    except MemoryError:
        sender.send(("memory", ""))
    finally:
        sender.close()
        os._exit(0)  # no atexit handlers, no database teardown inherited from the parent

"""Extraction with a time and memory limit enforced outside the parsers (issue 11,
finding 4: one small hostile file held the only worker for minutes and gigabytes).

Each file is extracted and chunked in a child process forked from the ingesting one
(fork: the parsers are imported before the first fork,
:func:`retrieval.extract.parsers_import`, so no interpreter starts) and kept for the
next file, until a file fails a limit or crashes it. Before each file the child sets
its own limits:

- address space (``RLIMIT_AS``): what it maps now plus ``INGEST_MAX_MEMORY_MB``, so an
  allocation past it fails with ``MemoryError`` (the child then leaves);
- CPU time (``RLIMIT_CPU``): ``INGEST_TIMEOUT_SECONDS`` more than it has used, then
  SIGXCPU, whose default action ends it;

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
import threading
import time
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


# A reader serves at most this many files before a fresh one is forked, and leaves after
# this long without a file (an idle web worker keeps no child).
READER_FILES = 200
READER_IDLE_SECONDS = 60.0
_local = threading.local()


class _Reader:
    """A child forked from this process that extracts file after file with ``work``,
    each under its own limits (module docstring), until it fails, has served
    :data:`READER_FILES` files, has grown by the memory limit or idles
    :data:`READER_IDLE_SECONDS`."""

    def __init__(self, work: Callable, *, key: tuple) -> None:
        self.key = key  # (work, owner): what it may read
        context = multiprocessing.get_context("fork")
        self.conn, child_end = context.Pipe()
        self.process = context.Process(target=_serve, args=(work, child_end), daemon=True,
                                       name="ciq-extract")
        self.process.start()
        child_end.close()
        self.owner = os.getpid()
        self.served = 0

    def usable(self) -> bool:
        return self.owner == os.getpid() and self.served < READER_FILES and self.process.is_alive()

    def close(self) -> None:
        self.conn.close()
        if self.process.is_alive():
            self.process.kill()
        self.process.join()


def readers_close() -> None:
    """End this thread's reader, if any (and, in tests, one forked before a monkeypatch,
    which would not see it), with the request it may have been sent ahead."""
    reader = getattr(_local, "reader", None)
    if reader is not None:
        reader.close()
    _local.reader = None
    _local.pending = None


def _reader(work: Callable, owner: object = None, *, fresh: bool = False) -> _Reader:
    """This thread's reader for ``work`` and the files of ``owner``, forked when it has
    none still usable for them: a thread keeps one reader (another owner's ends)."""
    reader = getattr(_local, "reader", None)
    if fresh or reader is None or reader.key != (work, owner) or not reader.usable():
        readers_close()
        reader = _local.reader = _Reader(work, key=(work, owner))
    return reader


def extract_bounded(path: Path, work: Callable = extract_and_chunk, *, owner: object = None,
                    then: Path | None = None):
    """``work(path)`` (default :func:`extract_and_chunk`) in a child process under the
    ingestion time and memory limits; returns what it returns.

    The child is kept for the next file of the same ``owner`` (:class:`_Reader`; the
    workspace's id at ingest): forking one per file cost about 11 ms and cold caches
    each, most of the time of a small file, and no child reads two firms' files, so a
    parser an exploit took over cannot touch another firm's. A child that fails a limit
    or crashes is not reused. ``then``: the file the caller will read next: the child is
    sent it as soon as it answers for this one, so it reads that file while the caller
    writes this one (a batch ingest, ``retrieval.services.documents_ingest``); the next
    call for ``then`` collects the answer, its wall-clock limit counted from the moment it
    was sent, and a call for another file first waits for that answer and drops it.
    Raises :class:`ExtractionError` with the child's own
    reason, or "took too long: over the N s limit (INGEST_TIMEOUT_SECONDS)",
    "needs too much memory: over the N MB limit (INGEST_MAX_MEMORY_MB)", "the parser
    crashed (…)". With ``INGEST_ISOLATE`` false, ``work`` runs in this process, unbounded.
    """
    if not settings.INGEST_ISOLATE:
        return work(path)
    parsers_import()
    timeout = settings.INGEST_TIMEOUT_SECONDS
    ahead = _taken_ahead(path)
    for attempt in (1, 2):  # a reader that left while idle, just now, is replaced once
        reader = _reader(work, owner, fresh=attempt == 2)
        try:
            if ahead is not None and ahead[0] is reader and attempt == 1:
                deadline = ahead[1]
            else:
                reader.conn.send(_request(path))
                deadline = time.monotonic() + timeout
            answered = reader.conn.poll(max(0.0, deadline - time.monotonic()))
            kind, value = reader.conn.recv() if answered else ("late", None)
        except (EOFError, OSError):
            reader.process.join(5)
            exitcode = reader.process.exitcode
            reader.close()
            if exitcode == 0 and attempt == 1:  # it left (idle, or grown) as the request came
                continue
            raise ExtractionError(_died(exitcode, timeout)) from None
        except BaseException:  # interrupted: its answer must not be read for the next file
            readers_close()
            raise
        if kind == "late":
            readers_close()
            raise ExtractionError(_too_long(timeout))
        reader.served += 1
        if kind == "memory":
            readers_close()
            raise ExtractionError(_too_big())
        if then is not None:
            _send_ahead(reader, then)
        if kind == "ok":
            return value
        raise ExtractionError(value)
    raise AssertionError("unreachable: the second attempt returns or raises")


def _request(path: Path) -> tuple[str, int, float]:
    return (str(path), settings.INGEST_MAX_MEMORY_MB * 1024 * 1024, settings.INGEST_TIMEOUT_SECONDS)


def _taken_ahead(path: Path) -> tuple[_Reader, float] | None:
    """(reader, deadline) when ``path`` was sent ahead (:func:`_send_ahead`) to this
    thread's reader, whose answer the caller now collects; else None, after waiting for
    and dropping the answer to a file sent ahead that the caller did not ask for after
    all (an unchanged file), or ending a reader that does not give it in time."""
    pending = getattr(_local, "pending", None)
    _local.pending = None
    if pending is None:
        return None
    reader, ahead, deadline = pending
    if ahead == str(path):
        return reader, deadline
    try:
        if reader.conn.poll(max(0.0, deadline - time.monotonic())):
            reader.conn.recv()
            reader.served += 1
            return None
    except (EOFError, OSError):
        pass
    readers_close()
    return None


def _send_ahead(reader: _Reader, path: Path) -> None:
    """Send ``path`` to ``reader`` before the caller asks for it (see
    :func:`extract_bounded`'s ``then``); a reader that cannot take it is not sent it."""
    if not reader.usable():
        return
    try:
        reader.conn.send(_request(path))
    except OSError:
        return
    _local.pending = (reader, str(path), time.monotonic() + settings.INGEST_TIMEOUT_SECONDS)


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


def _limit(kind: int, soft: int) -> None:
    """Set the soft limit of ``kind`` to ``soft``, never above the hard limit, which is
    left as it is so that the next file's soft limit can be set again."""
    _, hard = resource.getrlimit(kind)
    resource.setrlimit(kind, (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard))


def _serve(work: Callable, conn) -> None:
    """The reader's loop: for each ``(path, memory, timeout)`` received, set the limits
    relative to what the process uses now, run ``work``, send ``(kind, value)``:
    ``("ok", result)``, ``("error", reason)`` or ``("memory", "")``; leave after a
    memory failure, once it maps more than ``memory`` beyond what it did at the start,
    or after :data:`READER_IDLE_SECONDS` without a request."""
    faulthandler.disable()  # a crash is reported by its exit code, not a dump on stderr
    # The handlers came with the fork: db_worker's SIGTERM handler only asks the loop it
    # no longer runs to stop, so a stopping worker would wait for its idle child.
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, signal.SIG_DFL)
    start = _address_space()
    while conn.poll(READER_IDLE_SECONDS):
        try:
            path, memory, timeout = conn.recv()
        except EOFError:
            break
        answer = _one(work, path, memory, timeout)
        try:
            conn.send(answer)
        except MemoryError:
            conn.send(answer := ("memory", ""))
        # Memory the allocator kept from earlier files must not add up file after file.
        if answer[0] == "memory" or _address_space() > start + memory:
            break
    conn.close()
    os._exit(0)  # no atexit handlers, no database teardown inherited from the parent


def _one(work: Callable, path: str, memory: int, timeout: float) -> tuple[str, object]:
    """One file under its limits. The hard limits stay open so that the next file's
    soft limits can be set again (a process may lower a hard limit, never raise it);
    the parent's wall-clock timeout stands behind the CPU limit."""
    try:
        if memory:
            _limit(resource.RLIMIT_AS, _address_space() + memory)
        usage = resource.getrusage(resource.RUSAGE_SELF)
        _limit(resource.RLIMIT_CPU, int(usage.ru_utime + usage.ru_stime + timeout + 0.999))
        return ("ok", work(Path(path)))
    except ExtractionError as exc:
        return ("error", exc.reason)
    except MemoryError:
        return ("memory", "")
    except Exception as exc:  # a parser choked: report it, as document_ingest does
        reason = f"could not be read ({type(exc).__name__}: {exc})"
        if len(reason) > _REASON_CHARS:
            reason = reason[: _REASON_CHARS - 1].rstrip() + "…"
        return ("error", reason)

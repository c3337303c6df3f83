"""One place that turns service and request errors into API errors.

Services raise Django's ``ValidationError`` with field messages (``question_clean``,
``jurisdictions_clean``, ``documents_upload``...); the API answers them as DRF does its
own: ``400 {"field": ["message", ...]}``. A view whose request fields are named
differently from the service's arguments says so in ``service_error_fields``
(``{"question": "query"}``); errors that name no field go under ``non_field_errors``
unless the view maps that key too. Django's refusals to read a request (a body over
``DATA_UPLOAD_MAX_MEMORY_SIZE``, over ``DATA_UPLOAD_MAX_NUMBER_FILES`` files or
``…_FIELDS`` fields) become JSON 413/400 answers instead of Django's bare HTML 400.
A database still busy after its wait (SQLite's write lock held by a long ingest past
``SQLITE_TIMEOUT_SECONDS``; on PostgreSQL every connection of the process's pool in use
past ``DATABASE_POOL_TIMEOUT``) becomes 503 with ``Retry-After``: the request was not
done and may be sent again, which a 500 would not say.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import OperationalError
from rest_framework import exceptions, status
from rest_framework.serializers import as_serializer_error
from rest_framework.settings import api_settings
from rest_framework.views import exception_handler as drf_exception_handler

NON_FIELD_ERRORS = api_settings.NON_FIELD_ERRORS_KEY


class PayloadTooLarge(exceptions.APIException):
    """413: the request body is over ``DATA_UPLOAD_MAX_MEMORY_SIZE``."""

    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "The request body is too large."
    default_code = "payload_too_large"


class Conflict(exceptions.APIException):
    """409: the request clashes with the object's current state."""

    status_code = status.HTTP_409_CONFLICT
    default_detail = "The request conflicts with the current state."
    default_code = "conflict"


class DatabaseBusy(exceptions.APIException):
    """503: the database stayed locked by another writer for the whole wait, or (on
    PostgreSQL) no connection of the pool came free."""

    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_detail = "The database is busy with another write; nothing was changed. Try again shortly."
    default_code = "database_busy"


POOL_EXHAUSTED = "Every database connection is in use; nothing was changed. Try again shortly."


# Seconds a client is asked to wait before sending a refused write again.
DATABASE_BUSY_RETRY_AFTER = 5
# SQLite's messages for SQLITE_BUSY and SQLITE_LOCKED ("database is locked", "database
# table is locked", "database schema is locked").
_BUSY_MESSAGES = ("is locked", "database is busy")


def pool_exhausted(exc: BaseException) -> bool:
    """Whether ``exc`` is the connection pool lending no connection within its timeout
    (Django wraps psycopg-pool's ``PoolTimeout`` in its ``OperationalError``)."""
    if not isinstance(exc, OperationalError) or exc.__cause__ is None:
        return False
    try:
        from psycopg_pool import PoolTimeout
    except ImportError:
        return False
    return isinstance(exc.__cause__, PoolTimeout)


def database_busy(exc: BaseException) -> bool:
    """Whether ``exc`` is the database refusing a write because another holds the lock,
    or the pool lending no connection in time."""
    return isinstance(exc, OperationalError) and (
        any(m in str(exc) for m in _BUSY_MESSAGES) or pool_exhausted(exc))


def exception_handler(exc, context):
    """DRF's handler, plus Django ``ValidationError`` → 400 with field messages (renamed
    by the view's ``service_error_fields`` mapping, if any), ``RequestDataTooBig`` → 413 and
    too many files or fields → 400, a locked database or an exhausted connection pool →
    503 with ``Retry-After``, all as JSON like DRF's own errors.
    """
    if database_busy(exc):
        busy = DatabaseBusy(POOL_EXHAUSTED) if pool_exhausted(exc) else DatabaseBusy()
        response = drf_exception_handler(busy, context)
        response["Retry-After"] = str(DATABASE_BUSY_RETRY_AFTER)
        return response
    if isinstance(exc, RequestDataTooBig):
        exc = PayloadTooLarge(
            f"The request body is over the limit of {settings.DATA_UPLOAD_MAX_MEMORY_SIZE:,} bytes.")
    elif isinstance(exc, TooManyFilesSent | TooManyFieldsSent):
        exc = exceptions.ParseError(str(exc))
    if isinstance(exc, DjangoValidationError):
        renames = getattr(context.get("view"), "service_error_fields", {})
        detail = as_serializer_error(exc)
        exc = exceptions.ValidationError({renames.get(k, k): v for k, v in detail.items()})
    return drf_exception_handler(exc, context)

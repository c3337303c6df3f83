"""API tokens (django-rest-knox): hashed at rest, expiring, revocable.

A token is shown once, when it is created; the database keeps only its SHA-512 digest
and the first characters knox uses to find the row. Tokens expire after
``REST_KNOX["TOKEN_TTL"]`` (``API_TOKEN_TTL_HOURS``), end with their user's
deactivation (knox refuses inactive users) and are all revoked when the user's password
changes (:func:`tokens_revoke_on_password_change`).
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone
from knox.models import AuthToken


def token_create(*, user: AbstractBaseUser) -> tuple[AuthToken, str]:
    """A new token for ``user`` with the configured lifetime: ``(row, token string)``.
    The string is never stored and cannot be read again. The user's expired tokens
    are deleted on the way."""
    AuthToken.objects.filter(user=user, expiry__lt=timezone.now()).delete()
    return AuthToken.objects.create(user=user)


def tokens_revoke(*, user: AbstractBaseUser) -> int:
    """Delete every token of ``user``; returns how many there were."""
    deleted, _ = AuthToken.objects.filter(user=user).delete()
    return deleted


def tokens_revoke_on_password_change(sender, instance, raw: bool = False, **kwargs) -> None:
    """``pre_save`` of the user model: a changed password hash revokes the user's tokens,
    as a password change ends the user's login sessions (whoever knew the old password
    may have made a token with it). Covers ``set_password`` + ``save``, the admin and
    ``changepassword``; a bulk ``QuerySet.update`` of passwords bypasses signals."""
    if raw or instance.pk is None:
        return
    stored = type(instance).objects.filter(pk=instance.pk).values_list("password", flat=True).first()
    if stored is not None and stored != instance.password:
        tokens_revoke(user=instance)

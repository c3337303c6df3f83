"""Token authentication: django-rest-knox's hashed, expiring tokens, one query per request."""

from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.plumbing import build_bearer_security_scheme_object
from knox import auth


class TokenAuthentication(auth.TokenAuthentication):
    """knox's ``Authorization: Token <token>``, without its sweep of the user's other
    expired tokens on every request (one more query each time): the token used is still
    refused and deleted once expired, and ``api.tokens.token_create`` sweeps the rest."""

    def _cleanup_token(self, auth_token) -> bool:
        if auth_token.expiry is not None and auth_token.expiry < timezone.now():
            auth_token.delete()
            return True
        return False


class TokenScheme(OpenApiAuthenticationExtension):
    """The OpenAPI security scheme of :class:`TokenAuthentication`."""

    target_class = "ciq.api.authentication.TokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema):
        return build_bearer_security_scheme_object(header_name="Authorization", token_prefix="Token")

"""``POST /api/v1/auth/token/`` (username + password → a new token),
``POST /api/v1/auth/logout/`` (revoke the token used) and
``POST /api/v1/auth/logoutall/`` (revoke every token of the caller)."""

from drf_spectacular.utils import OpenApiResponse, extend_schema
from knox.views import LoginView, LogoutAllView, LogoutView
from rest_framework.permissions import AllowAny

from ciq.api.authentication import TokenAuthentication
from ciq.api.serializers.auth import TokenRequestSerializer, TokenSerializer
from ciq.api.tokens import token_create


class TokenCreateView(LoginView):
    """A new token for a username and password, shown only in this response."""

    authentication_classes: list = []  # the password is the credential, not a session
    permission_classes = [AllowAny]
    serializer_class = TokenRequestSerializer

    def create_token(self):
        return token_create(user=self.request.user)

    @extend_schema(request=TokenRequestSerializer, responses={
        200: TokenSerializer,
        400: OpenApiResponse(description="Wrong username or password."),
        429: OpenApiResponse(description="Too many failed logins from this address for this user."),
    })
    def post(self, request, format=None):
        serializer = TokenRequestSerializer(data=request.data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        request.user = serializer.validated_data["user"]
        return super().post(request, format)


class TokenRevokeView(LogoutView):
    """Revoke the token this request authenticated with (204)."""

    authentication_classes = [TokenAuthentication]

    @extend_schema(request=None, responses={204: None})
    def post(self, request, format=None):
        return super().post(request, format)


class TokenRevokeAllView(LogoutAllView):
    """Revoke every token of the caller (204)."""

    authentication_classes = [TokenAuthentication]

    @extend_schema(request=None, responses={204: None})
    def post(self, request, format=None):
        return super().post(request, format)

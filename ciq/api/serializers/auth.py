"""Token endpoint input and output."""

from django.contrib.auth import authenticate
from rest_framework import serializers


class TokenRequestSerializer(serializers.Serializer):
    """``username`` and ``password``; valid when they authenticate an active user."""

    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=4096, trim_whitespace=False,
                                     style={"input_type": "password"}, write_only=True)

    def validate(self, attrs):
        request = self.context["request"]
        # The Django request, not DRF's wrapper: django-axes marks a locked-out login on
        # the request it is given, and its middleware reads the mark from Django's.
        user = authenticate(request=getattr(request, "_request", request),
                            username=attrs["username"], password=attrs["password"])
        if user is None:
            raise serializers.ValidationError("Unable to log in with the credentials provided.",
                                              code="authorization")
        attrs["user"] = user
        return attrs


class TokenSerializer(serializers.Serializer):
    """A new token, shown this once, and when it expires."""

    token = serializers.CharField()
    expiry = serializers.DateTimeField(allow_null=True)

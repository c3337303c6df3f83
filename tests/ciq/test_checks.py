"""System checks catch a misconfigured backend before any run."""

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError


def test_the_default_configuration_passes_the_checks():
    call_command("check")


def test_an_unknown_backend_is_an_error_naming_the_setting(settings):
    settings.CIQ_JUDGE = "gpt-judge"
    with pytest.raises(SystemCheckError, match=r"CIQ_JUDGE='gpt-judge' names no backend"):
        call_command("check")

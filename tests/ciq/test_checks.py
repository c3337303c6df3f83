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


def test_a_model_spec_passes_with_its_key_and_fails_without(settings):
    settings.CIQ_WRITER = "anthropic:claude-test"
    settings.ANTHROPIC_API_KEY = "sk-ant-test"
    call_command("check")
    settings.ANTHROPIC_API_KEY = ""
    with pytest.raises(SystemCheckError, match=r"ciq.E002.*needs ANTHROPIC_API_KEY"):
        call_command("check")


def test_a_malformed_model_spec_is_an_error(settings):
    settings.CIQ_SKEPTIC = "mistral:large"
    with pytest.raises(SystemCheckError, match=r"CIQ_SKEPTIC='mistral:large' names no backend"):
        call_command("check")

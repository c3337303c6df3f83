"""Property-based fuzz of the API from its own OpenAPI schema (schemathesis): whatever
the generated input, valid or not, no endpoint answers 5xx.

Every operation of ``/api/schema/`` is called in-process through the WSGI app as a
token-authenticated member of the Demo workspace, ``FUZZ_EXAMPLES`` examples each
(positive and negative generation, derandomized so CI runs are repeatable). Nothing is
excluded: uploads are staged but never ingested (background tasks run only on commit,
which a test transaction never reaches) and exports of existing sessions really render.

schemathesis's pytest loader (``schemathesis.pytest.from_fixture``) does not run under
pytest 9 (it sets ``Node._nodeid``), so the operations are driven with hypothesis here.
"""

import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error

from ciq.api.tokens import token_create
from tests.api_support import session_run, token_client

FUZZ_EXAMPLES = 40

pytestmark = pytest.mark.django_db


def fuzz(operation, headers: dict) -> int:
    """Call ``operation`` with generated cases; returns how many were sent. A 5xx fails
    with schemathesis's report (the request as a curl command)."""
    sent = 0
    strategy = st.one_of(*(operation.as_strategy(generation_mode=mode)
                           for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)))

    @given(case=strategy)
    @settings(max_examples=FUZZ_EXAMPLES, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    def run(case):
        nonlocal sent
        sent += 1
        case.call_and_validate(headers=headers, checks=[not_a_server_error])

    run()
    return sent


def test_no_input_makes_the_api_fail_with_a_server_error(owner, demo_workspace,
                                                          django_capture_on_commit_callbacks):
    session_run(token_client(owner), django_capture_on_commit_callbacks, demo_workspace)
    schema = schemathesis.openapi.from_wsgi(  # the schema needs a signed-in caller too
        "/api/schema/?format=json", get_wsgi_application(),
        headers={"Authorization": f"Token {token_create(user=owner)[1]}"})
    sent = {}
    for result in schema.get_all_operations():
        operation = result.ok()
        # A fresh token per operation: the logout endpoints revoke the one they are sent.
        headers = {"Authorization": f"Token {token_create(user=owner)[1]}"}
        sent[operation.label] = fuzz(operation, headers)
    assert len(sent) == 17 and all(n > 0 for n in sent.values()), sent
    print(f"schemathesis: {len(sent)} operations, {sum(sent.values())} requests, no 5xx: {sent}")

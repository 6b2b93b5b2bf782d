"""Which answer failures are the infrastructure's (they teach nothing about the agent)."""

from __future__ import annotations

import pytest

from tools.harness import infrastructure_error


@pytest.mark.parametrize("error", [
    "OpenAIConnectionError: Connection error.",
    "APIConnectionError: Connection error.",
    "transport error talking to http://127.0.0.1:9/v1/chat/completions: [Errno 111] Connection refused (after 3 attempts)",
    "AuthenticationError: Error code: 401 - {'error': {'message': 'Incorrect API key provided'}}",
    "RateLimitError: Error code: 429 - {'error': {'code': 'insufficient_quota'}}",
    "HTTP 401 from http://127.0.0.1:8000/v1/chat/completions",
    "HTTP 503 from http://127.0.0.1:8000/v1/chat/completions (after 3 attempts)",
    "ConnectError: [Errno -2] Name or service not known",
])
def test_connection_auth_and_quota_failures_are_infrastructure(error):
    assert infrastructure_error(error)


@pytest.mark.parametrize("error", [
    None, "", "timeout: no answer after 60 s", "exit code 1: Traceback ... KeyError: 'zone'",
    "agent process died (killed by SIGSEGV)", "reply too large: more than 1,000,000 bytes (--max-reply)",
    "HTTP 400 from http://127.0.0.1:8000/v1/chat/completions", "BinderException: column \"temp\" not found",
])
def test_the_agents_own_failures_are_not(error):
    assert not infrastructure_error(error)

"""agents.models / agents.structured / agents.llm_cache: model resolution, structured calls
(validate, retry, fall back), the on-disk cache and usage accounting; over real HTTP with the scripted server and with the fake chat model."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, Field

from agents.llm_cache import cache_key
from agents.models import (
    LLMConfigError,
    get_chat_model,
    offline_reason,
    reset_offline,
    reset_usage,
    usage,
)
from agents.structured import structured_call
from tests.agents.fake_chat import FakeChatModel
from tests.llm_server import ToolCall


class Answer(BaseModel):
    value: int = Field(ge=0)
    reason: str


MESSAGES = [("system", "Answer with JSON."), ("user", "What is 2 + 2?")]


def test_offline_by_default_and_a_bad_model_is_a_config_error(monkeypatch):
    assert get_chat_model() is None
    assert get_chat_model("none") is None
    assert structured_call(None, MESSAGES, Answer) is None
    with pytest.raises(LLMConfigError, match="CHRONOEVAL_MODEL"):
        get_chat_model("no-such-provider:model-x")


def test_structured_output_over_http_with_json_schema(llm_env):
    llm_env.script({"value": 4, "reason": "arithmetic"})
    model = get_chat_model()
    out = structured_call(model, MESSAGES, Answer, purpose="test")
    assert out == Answer(value=4, reason="arithmetic")
    body = llm_env.requests[0]
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"]["properties"]["value"]["type"] == "integer"
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    u = usage()
    assert u.calls == 1 and u.input_tokens > 0 and u.output_tokens > 0 and u.by_purpose == {"test": 1}


def test_invalid_output_is_retried_with_the_validation_error(llm_env):
    llm_env.malformed_json().script({"value": -1, "reason": "x"}, {"value": 4, "reason": "ok"})
    out = structured_call(get_chat_model(), MESSAGES, Answer, retries=2)
    assert out == Answer(value=4, reason="ok")
    assert llm_env.calls == 3
    third = llm_env.requests[2]["messages"]
    assert "not valid" in third[-1]["content"] and "greater than or equal to 0" in third[-1]["content"]
    assert usage().retries == 2


def test_malformed_json_after_the_retries_returns_none_with_a_note(llm_env):
    llm_env.malformed_json(times=3)
    notes: list[str] = []
    assert structured_call(get_chat_model(), MESSAGES, Answer, retries=2, purpose="paraphrase", notes=notes) is None
    assert llm_env.calls == 3
    assert len(notes) == 1 and "invalid output after 3 attempt(s)" in notes[0] and "deterministic" in notes[0]
    assert usage().failures == 1


def test_http_500_falls_back_with_a_note(llm_env):
    llm_env.fail_with(500)
    notes: list[str] = []
    assert structured_call(get_chat_model(), MESSAGES, Answer, notes=notes) is None
    assert "server answered with an error" in notes[0] and "500" in notes[0] and llm_env.calls == 1


@pytest.fixture
def forget_offline():
    reset_offline()
    yield
    reset_offline()


def test_a_slow_server_hits_the_timeout_and_counts_as_unreachable(llm_env, monkeypatch, forget_offline):
    monkeypatch.setenv("CHRONOEVAL_LLM_TIMEOUT", "0.5")
    llm_env.delay(2.0).script({"value": 1, "reason": "late"})
    notes: list[str] = []
    assert structured_call(get_chat_model(), MESSAGES, Answer, notes=notes) is None
    assert "cannot reach the LLM" in notes[0]


def test_an_unreachable_server_warns_once_and_the_process_goes_offline(monkeypatch, forget_offline, capsys):
    import time

    monkeypatch.setenv("CHRONOEVAL_MODEL", "openai:scripted")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # discard port: connection refused
    monkeypatch.setenv("CHRONOEVAL_LLM_RETRIES", "0")
    notes: list[str] = []
    assert structured_call(get_chat_model(), MESSAGES, Answer, notes=notes, purpose="spec_writer") is None
    warning = capsys.readouterr().err
    assert warning.count("warning: cannot reach the LLM") == 1
    assert "127.0.0.1:9" in warning and "CHRONOEVAL_MODEL=none" in warning and "Continuing offline" in warning
    assert offline_reason(get_chat_model()) and "127.0.0.1:9" in notes[0]
    t0 = time.perf_counter()
    assert structured_call(get_chat_model(), MESSAGES, Answer, notes=notes, purpose="chat") is None
    assert time.perf_counter() - t0 < 0.05 and "unreachable earlier" in notes[1]  # no second connection attempt
    assert capsys.readouterr().err == ""


def test_a_rejected_key_takes_the_model_offline_too(llm_env, forget_offline, capsys):
    llm_env.fail_with(401, times=5)
    model = get_chat_model()
    assert structured_call(model, MESSAGES, Answer) is None and offline_reason(model)
    assert "OPENAI_API_KEY" in capsys.readouterr().err and llm_env.calls == 1
    assert structured_call(model, MESSAGES, Answer) is None and llm_env.calls == 1


def test_the_cache_makes_a_second_call_free(llm_env):
    llm_env.script({"value": 4, "reason": "first"})
    model = get_chat_model()
    first = structured_call(model, MESSAGES, Answer)
    reset_usage()
    again = structured_call(get_chat_model(), MESSAGES, Answer)
    assert again == first and llm_env.calls == 1
    assert usage().cache_hits == 1 and usage().calls == 0
    other = [("system", "Answer with JSON."), ("user", "What is 3 + 3?")]
    assert cache_key(model, other, Answer) != cache_key(model, MESSAGES, Answer)

    class Other(BaseModel):
        value: int

    assert cache_key(model, MESSAGES, Other) != cache_key(model, MESSAGES, Answer)


def test_the_callers_check_is_fed_back_to_the_model():
    fake = FakeChatModel(replies=[{"value": 3, "reason": "guess"}, {"value": 4, "reason": "fixed"}])
    out = structured_call(fake, MESSAGES, Answer, check=lambda a: [] if a.value == 4 else ["2 + 2 is not 3"])
    assert out.value == 4
    assert "2 + 2 is not 3" in fake.calls[1][-1].content


def test_tool_calls_travel_over_http_through_langchain_openai(openai_server):
    from langchain_core.tools import tool
    from langchain_openai import ChatOpenAI

    @tool
    def row_count(table: str) -> int:
        """Rows in a table."""
        return 7

    openai_server.script(ToolCall("row_count", {"table": "readings"}, id="call_a"), "7 rows")
    model = ChatOpenAI(model="scripted", base_url=openai_server.base_url, api_key="k", max_retries=0)
    first = model.bind_tools([row_count]).invoke("how many rows?")
    assert first.tool_calls[0]["name"] == "row_count" and first.tool_calls[0]["args"] == {"table": "readings"}
    assert openai_server.requests[0]["tools"][0]["function"]["name"] == "row_count"
    assert model.invoke("and now?").content == "7 rows"


def test_an_unscripted_call_fails_loudly(openai_server):
    from langchain_openai import ChatOpenAI

    model = ChatOpenAI(model="scripted", base_url=openai_server.base_url, api_key="k", max_retries=0)
    with pytest.raises(Exception, match="script exhausted"):
        model.invoke("hello")

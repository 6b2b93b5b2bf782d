"""One home for all state: CHRONOEVAL_HOME holds memory, LLM cache and sessions; each overridable."""

from pathlib import Path

from graph.cli_build import sessions_path
from graph.cli_memory import default_memory_dir
from graph.paths import chronoeval_home, llm_cache_dir


def test_home_holds_memory_cache_and_sessions(monkeypatch, tmp_path):
    monkeypatch.setenv("CHRONOEVAL_HOME", str(tmp_path / "h"))
    monkeypatch.delenv("CHRONOEVAL_MEMORY_DIR")
    monkeypatch.delenv("CHRONOEVAL_CACHE_DIR")
    assert default_memory_dir() == tmp_path / "h" / "memory"
    assert llm_cache_dir() == tmp_path / "h" / "cache" / "llm"
    assert sessions_path() == tmp_path / "h" / "sessions.sqlite"


def test_each_part_can_be_moved_alone(monkeypatch, tmp_path):
    monkeypatch.setenv("CHRONOEVAL_HOME", str(tmp_path / "h"))
    monkeypatch.setenv("CHRONOEVAL_MEMORY_DIR", str(tmp_path / "m"))
    monkeypatch.setenv("CHRONOEVAL_CACHE_DIR", str(tmp_path / "c"))
    assert default_memory_dir() == tmp_path / "m"
    assert llm_cache_dir() == tmp_path / "c"
    assert sessions_path(tmp_path / "s.sqlite") == tmp_path / "s.sqlite"


def test_default_home_is_the_users_data_directory(monkeypatch, tmp_path):
    for name in ("CHRONOEVAL_HOME", "CHRONOEVAL_MEMORY_DIR", "CHRONOEVAL_CACHE_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert chronoeval_home() == Path(tmp_path) / ".local" / "share" / "chronoeval"
    assert llm_cache_dir() == tmp_path / ".local" / "share" / "chronoeval" / "cache" / "llm"
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_memory_dir() == tmp_path / "xdg" / "chronoeval" / "memory"
    monkeypatch.setenv("CHRONOEVAL_HOME", "   ")  # blank: ignored
    assert chronoeval_home() == tmp_path / "xdg" / "chronoeval"


def test_a_command_points_the_agents_llm_cache_at_the_home(monkeypatch, tmp_path):
    from agents.llm_cache import cache_dir, use_cache_dir
    from graph.cli_base import errors

    use_cache_dir(None)  # agents alone cache nowhere: the application says where
    assert cache_dir() is None
    monkeypatch.setenv("CHRONOEVAL_CACHE_DIR", str(tmp_path / "c"))
    with errors():
        assert cache_dir() == tmp_path / "c"
    monkeypatch.setenv("CHRONOEVAL_CACHE_DIR", str(tmp_path / "c2"))  # read at each call
    assert cache_dir() == tmp_path / "c2"

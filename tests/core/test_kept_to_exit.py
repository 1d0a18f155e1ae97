"""`pypto-check` keeps each file's analysis to the process's end (which is `os._exit`: nothing
kept is ever torn down) up to a memory limit, past which it frees them as it goes."""

from __future__ import annotations

import weakref

from test_cli import CLEAN

import pypto_core.cli as cli
from pypto_core import kept_to_exit
from pypto_core.kept_to_exit import KeptToExit, limit_for


class _Analysis:
    """Stands for a file's analysis: something that can be watched dying."""


def test_below_the_limit_every_value_is_kept() -> None:
    keeper = KeptToExit(limit=1 << 62)
    values = [_Analysis() for _ in range(3)]
    watched = [weakref.ref(v) for v in values]
    assert all(keeper.keep(v) for v in values)
    del values
    assert all(w() is not None for w in watched)


def test_past_the_limit_what_was_kept_is_let_go_and_nothing_more_is_kept(monkeypatch) -> None:
    peak = [100]
    monkeypatch.setattr(kept_to_exit, "_peak_resident", lambda: peak[0])
    keeper = KeptToExit(limit=1_000)
    first = _Analysis()
    watched = weakref.ref(first)
    assert keeper.keep(first)
    del first
    assert watched() is not None
    peak[0] = 1_000
    assert not keeper.keep(_Analysis())
    assert watched() is None
    peak[0] = 100  # the limit once reached stays reached: the process's peak never falls
    assert not keeper.keep(_Analysis())
    assert keeper.kept == []


def test_a_limit_of_nothing_keeps_nothing() -> None:
    assert not KeptToExit(limit=0).keep(_Analysis())


def test_each_process_is_given_a_share_of_the_machine_at_most_the_cap() -> None:
    one, four = limit_for(1), limit_for(4)
    assert 0 < four <= one <= 2 << 30


def test_a_containers_memory_limit_bounds_the_share(tmp_path, monkeypatch) -> None:
    """A CI container sees the host's memory through `sysconf`; its cgroup limit is the bound."""
    limit = tmp_path / "memory.max"
    limit.write_text("400000000\n")
    monkeypatch.setattr(kept_to_exit, "_CGROUP_LIMITS", (tmp_path / "missing", limit))
    assert limit_for(2) == 400_000_000 // (4 * 2)
    limit.write_text("max\n")  # no limit: the machine's memory
    assert limit_for(2) > 400_000_000 // (4 * 2)


def test_a_check_called_from_python_keeps_nothing_past_its_return() -> None:
    """Only a run that ends with `os._exit` (`cli.run`) or on worker processes keeps them."""
    assert cli._keep_limit(1, exits=False) == 0
    assert cli._keep_limit(1, exits=True) == limit_for(1)
    assert cli._keep_limit(2, exits=False) == limit_for(2)


def test_a_run_keeping_its_analyses_prints_what_one_freeing_them_prints(
    tmp_path, capsys, monkeypatch
) -> None:
    for name in ("a.py", "b.py", "c.py"):
        (tmp_path / name).write_text(
            CLEAN.replace("t = pl.load", f"u_{name[0]} = undefined\n            t = pl.load")
        )
    freeing = cli.main(["--format", "json", "-j", "1", str(tmp_path)]), capsys.readouterr().out
    kept: list[object] = []
    real_keep = KeptToExit.keep

    def keep(self: KeptToExit, value: object) -> bool:
        assert self.limit > 0
        kept.append(value)
        return real_keep(self, value)

    monkeypatch.setattr(KeptToExit, "keep", keep)
    monkeypatch.setattr(cli, "_keep_limit", lambda processes, exits: 1 << 62)
    keeping = cli.main(["--format", "json", "-j", "1", str(tmp_path)]), capsys.readouterr().out
    assert len(kept) == 3
    assert keeping == freeing
    assert freeing[1].count('"path"') == 3

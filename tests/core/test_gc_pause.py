import gc

from pypto_core.gc_pause import gc_paused


def test_the_collector_is_paused_inside_nested_blocks_and_restored_after() -> None:
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_what_an_analysis_keeps_skips_the_young_generation() -> None:
    """The survivors are moved to the oldest generation: no young collection walks them."""
    with gc_paused():
        kept = [[index] for index in range(20_000)]
    assert gc.get_count()[0] < 1_000  # would be over 20,000 had they stayed young
    assert gc.get_freeze_count() == 0  # moved, not frozen: cycles among them are still collected
    assert len(kept) == 20_000


def test_objects_the_host_froze_stay_frozen() -> None:
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with gc_paused():
            kept = [[index] for index in range(1_000)]
        assert gc.get_freeze_count() == frozen
        assert len(kept) == 1_000
    finally:
        gc.unfreeze()


class _Cyclic:
    """An object kept alive only by a reference cycle (reference counting never frees it)."""

    def __init__(self) -> None:
        self.me = self


def test_a_long_block_collects_cycles_only_once_they_may_have_piled_up(monkeypatch) -> None:
    """`pypto-check` pauses the collector for its whole run and calls `collect_if_grown`
    after each file: cyclic garbage is collected once the allocations since the last
    collection exceed the floor, and left alone below it."""
    import weakref

    from pypto_core import gc_pause

    monkeypatch.setattr(gc_pause, "_RUN_FLOOR", 50_000)
    monkeypatch.setattr(gc_pause, "_run_live", 0)
    with gc_paused():
        garbage = weakref.ref(_Cyclic())
        gc_pause.collect_if_grown()
        assert garbage() is not None  # little was allocated: no collection
        kept = [[index] for index in range(60_000)]
        gc_pause.collect_if_grown()
        assert garbage() is None  # past the floor: collected
        assert gc_pause._run_live >= len(kept)  # the next allowance is what is alive now
        assert not gc.isenabled()


def test_outside_a_block_nothing_is_collected_early(monkeypatch) -> None:
    import weakref

    from pypto_core import gc_pause

    monkeypatch.setattr(gc_pause, "_RUN_FLOOR", 10)
    gc.disable()  # no automatic collection may blur the assertion
    try:
        garbage = weakref.ref(_Cyclic())
        kept = [[index] for index in range(1_000)]
        gc_pause.collect_if_grown()
        assert garbage() is not None and len(kept) > 0
    finally:
        gc.enable()

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

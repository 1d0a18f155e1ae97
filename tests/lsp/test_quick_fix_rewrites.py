"""The libcst rewrites behind the quick fixes, on the forms the e2e tests do not reach."""

from __future__ import annotations

import textwrap

from pypto_lsp.quick_fixes import fixes_for


def fix(code: str, source: str, anchor: str, data: dict[str, object] | None = None) -> dict[str, str]:
    """The fixes for a diagnostic at the first occurrence of `anchor`, by title."""
    text = textwrap.dedent(source).lstrip("\n")
    before = text[: text.index(anchor)]
    line, col = before.count("\n") + 1, len(before) - (before.rfind("\n") + 1)
    return dict(fixes_for(code, text, line, col, data or {}))


def test_a_positional_role_is_dropped() -> None:
    source = """
    class P:
        def main(self):
            with pl.at(pl.Level.CORE_GROUP, pl.Role.Orchestrator):  # keep
                pass
    """
    (fixed,) = fix("PTO121", source, "pl.Role").values()
    assert "with pl.at(pl.Level.CORE_GROUP):  # keep\n" in fixed


def test_a_removed_only_statement_leaves_pass_and_its_comment() -> None:
    source = """
    class P:
        def main(self):
            with pl.at(level=pl.Level.CORE_GROUP):
                # why
                pl.set_cache_policy(v, pl.CachePolicy.BYPASS)
            return v
    """
    (fixed,) = fix("PTO302", source, "pl.set_cache_policy").values()
    assert "            # why\n            pass\n        return v\n" in fixed


def test_a_trailing_statement_keeps_its_comment_at_the_block_end() -> None:
    source = """
    class P:
        def main(self):
            with pl.at(level=pl.Level.CORE_GROUP):
                b = pl.load(w, [0], [64])
                # last
                pl.set_cache_policy(v, pl.CachePolicy.BYPASS)
            return v
    """
    (fixed,) = fix("PTO303", source, "pl.set_cache_policy").values()
    assert "pl.set_cache_policy" not in fixed and "# last" in fixed


def test_graph_keywords_survive_naming_the_region() -> None:
    source = """
    class P:
        def main(self):
            with pl.graph():
                pass
    """
    assert set(fix("PTO140", source, "pl.graph")) == {'Name the region: pl.graph("region")'}


def test_no_hoist_when_the_scope_binds_what_the_definition_reads() -> None:
    source = """
    class P:
        def main(self):
            for i in pl.spmd(4):
                n = pl.read(cfg, [i])
            m = n + 1
    """
    assert fix("PTO301", source, "n = pl.read", {"scalar": "n"}) == {}


def test_no_fix_for_text_libcst_cannot_parse() -> None:
    assert fix("PTO121", "with pl.at(level=pl.Level.CORE_GROUP, role=\n", "role") == {}


CLUSTERED_SPMD = """
class P:
    def main(self, x, out):
        # launch the experts
        with pl.cluster():  # one group
            with pl.spmd(4, deps=[t0]):
                out = self.expert(x, out)
        return out
"""


def test_pto164_drops_the_cluster_wrapper_keeping_its_comments() -> None:
    """#2593: the compiler's advice for deps= on a cluster-nested pl.spmd is to drop the
    pl.cluster() wrapper (a standalone pl.spmd is its own implicit cluster)."""
    (fixed,) = fix("PTO164", CLUSTERED_SPMD, "deps=").values()
    assert "pl.cluster" not in fixed
    assert (
        "        # launch the experts\n        # one group\n        with pl.spmd(4, deps=[t0]):\n"
        "            out = self.expert(x, out)\n        return out\n"
    ) in fixed


def test_pto164_offers_nothing_when_the_cluster_holds_more_than_the_spmd() -> None:
    """Dropping the wrapper would move the other statements out of the Group function."""
    source = CLUSTERED_SPMD.replace(
        "            with pl.spmd", "            y = pl.add(x, x)\n            with pl.spmd"
    )
    assert fix("PTO164", source, "deps=") == {}


WRITTEN_IN_PARAM = """
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64], pl.FP32], out: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        out = pl.store(pl.load(x, [0], [64]), [0], out)
        return out
"""


def test_pto165_wraps_the_annotation_in_the_suggested_direction() -> None:
    """#2457's message: declare the parameter pl.Out (written, never read) or pl.InOut."""
    for direction in ("Out", "InOut"):
        data = {"param": "out", "function": "k", "direction": direction}
        (fixed,) = fix("PTO165", WRITTEN_IN_PARAM, "pl.store", data).values()
        assert f"out: pl.{direction}[pl.Tensor[[64], pl.FP32]]) ->" in fixed
        assert "x: pl.Tensor[[64], pl.FP32]," in fixed  # the other parameter is left alone


def test_pto165_uses_the_alias_the_signature_spells() -> None:
    source = WRITTEN_IN_PARAM.replace("pl.Tensor", "dsl.Tensor")
    data = {"param": "out", "function": "k", "direction": "Out"}
    (fixed,) = fix("PTO165", source, "pl.store", data).values()
    assert "out: dsl.Out[dsl.Tensor[[64], pl.FP32]]" in fixed


def test_pto160_and_pto159_get_the_same_fix() -> None:
    """The compiler's hint for `allow_early_resolve=` / `predicate=` / `as tid` on a
    cluster-nested pl.spmd is a standalone pl.spmd (e2d0f78's parser), the same rewrite."""
    for code, spmd in (
        ("PTO160", "with pl.spmd(4, allow_early_resolve=True):"),
        ("PTO159", "with pl.spmd(4) as tid:"),
    ):
        source = CLUSTERED_SPMD.replace("with pl.spmd(4, deps=[t0]):", spmd)
        (fixed,) = fix(code, source, "pl.spmd").values()
        assert "pl.cluster" not in fixed and f"        {spmd}\n" in fixed

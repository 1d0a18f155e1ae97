"""Parameter directions from callee evidence (spec 000 "Write direction", dsl-reference §4.2.7
step 2): the callee slots are two independent flags, the body's own reads count, a Submit maps
its arguments onto a prefix of the callee's parameters, and its deps are always read."""

from __future__ import annotations

from outline_cases import T64, clean, run

T = "pl.Tensor[[16, 128], pl.FP32]"
CALLEES = f"""
@pl.function(type=pl.FunctionType.InCore)
def reader(self, buf: {T}) -> {T}:
    return buf

@pl.function(type=pl.FunctionType.InCore)
def overwrite(self, buf: pl.Out[{T}]) -> {T}:
    return buf

@pl.function(type=pl.FunctionType.InCore)
def fill(self, src: {T}, dst: pl.Out[{T}], spare: pl.Out[{T}]) -> {T}:
    return dst
"""


def _cluster_param(body: str, name: str = "shared") -> str:
    lines = "\n".join(f"        {line}" for line in body.strip("\n").splitlines())
    r = clean(
        CALLEES
        + f"""
@pl.function(type=pl.FunctionType.Orchestration)
def main(self, src: {T}, shared: pl.InOut[{T}]) -> {T}:
    with pl.cluster():
{lines}
    return shared
"""
    )
    return dict(r.params("main_cluster_0"))[name]


def test_spec_body_read_plus_callee_overwrite_is_inout() -> None:
    assert (
        _cluster_param("""
with pl.at(level=pl.Level.CORE_GROUP):
    value = pl.load(shared, [0, 0], [16, 128])
shared = self.overwrite(shared)
""")
        == "InOut"
    )


def test_handing_a_capture_only_to_a_callee_out_slot_is_out() -> None:
    assert _cluster_param("shared = self.overwrite(shared)") == "Out"


def test_callee_in_slot_and_another_callees_out_slot_merge_to_inout() -> None:
    """The two-flag merge: folding one call at a time would lose the read (issue #2415)."""
    assert (
        _cluster_param("""
r = self.reader(shared)
shared = self.overwrite(shared)
""")
        == "InOut"
    )


def test_callee_in_slot_alone_is_in() -> None:
    assert _cluster_param("r = self.reader(shared)") == "In"


def test_submit_arguments_map_onto_a_prefix_of_the_callee_params() -> None:
    assert _cluster_param("shared, t = pl.submit(self.fill, src, shared)") == "Out"


def test_plain_call_of_the_wrong_arity_binds_no_slot_so_every_argument_is_read() -> None:
    r = run(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def two(self, a: {T64}, out: pl.Out[{T64}]) -> {T64}:
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: {T64}, out: pl.Out[{T64}]) -> {T64}:
            with pl.cluster():
                out = self.two(a, out, a)
            return out
        """)
    assert dict(r.params("main_cluster_0"))["out"] == "In"
    assert r.codes == ["PTO203"]  # the parser rejects the count; the scope is still outlined

"""`ir.Program` keeps its functions in byte order of their names (the order the compiler's
printer and the naming collision rules see)."""

from __future__ import annotations

import pickle

from ir_builder import function, program

from pypto_core import ir


def empty(name: str) -> ir.Function:
    return function(name, [], [])


def test_added_functions_keep_byte_order_and_a_repeated_name_goes_after_its_twin() -> None:
    prog = program(empty("main"), empty("b"))
    first_b = prog.functions[0]
    for name in ("a_incore_0", "B", "main_incore_1", "b", "_x"):
        prog.add(empty(name))
    assert [f.name for f in prog.functions] == ["B", "_x", "a_incore_0", "b", "b", "main", "main_incore_1"]
    assert prog.functions[3] is first_b
    assert prog.get("b") is first_b


def test_a_signature_keeps_its_hash_but_does_not_carry_it_across_a_pickle() -> None:
    # a string's hash is another in another process: a pickled signature hashes itself again
    signature = ir.CalleeSignature("k", ir.FunctionType.InCore, ("x",), (ir.Direction.In,), ())
    assert hash(signature) == hash(signature)
    copied = pickle.loads(pickle.dumps(signature))
    assert "_hash" not in copied.__dict__
    assert copied == signature and {signature: 1}[copied] == 1

"""The structure of orbench as its imports show it (tests/import_graph.py): no module imports itself around a
loop, and no layer imports from a layer above it."""

from tests.import_graph import LAYERS, cycles, graph, layer, render, upward


def test_no_import_cycle_and_no_import_against_the_layers():
    g = graph()
    assert len(g) > 60 and {layer(m) for m in g} == set(LAYERS)
    problems = [" <-> ".join(c) for c in cycles(g)] + upward(g)
    assert not problems, "\n".join(problems) + "\n\nthe graph:\n" + render(g)


def test_the_check_finds_a_cycle_and_an_upward_import():
    g = {"orbench.results.store": {"orbench.running.runner"}, "orbench.running.runner": {"orbench.results.store"}}
    assert cycles(g) == [["orbench.results.store", "orbench.running.runner"]]
    assert upward(g) == ["orbench.results.store (results) imports orbench.running.runner (running)"]

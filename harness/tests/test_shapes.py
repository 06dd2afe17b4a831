"""Invocation shapes as a point dimension (PROTOCOL.md, "Invocation shapes"): what each shape takes, how a
campaign expands them, whom a shape is skipped for and why, what the baseline of a shape is, the cost of a shape
over the in call, and the translator leaving the CORBA-only part of the IDL out. check-target's shape steps run
against real workers in test_conformance_mutants.py and test_contract.py."""

import math

import pytest
from orbench.campaign.spec import read_campaign
from orbench.idl.parser import IdlError, parse, parse_file
from orbench.paths import repo_root
from orbench.results import shapes
from orbench.results.point import Point
from orbench.results.upgrade import upgrade
from orbench.summary.history import point_key, point_label
from orbench.summary.model import PointSummary
from orbench.summary.shape_costs import shape_costs
from orbench.targets.descriptor import read_targets

from tests.conftest import campaign_error

CAMPAIGN = """
name = "t"
targets = ["omniorb", "omniorbpy"]
modes = ["twoway", "echo"]
shapes = ["in", "out", "wstring", "dii", "ami-8"]
payload_bytes = [1, 1024]
"""


def test_shape_kinds_and_what_they_take():
    assert shapes.kind_of("ami-8").name == "ami" and shapes.outstanding("ami-8") == 8
    assert shapes.outstanding("out") == 1
    assert shapes.combines("out", "twoway", "records") and not shapes.combines("out", "echo", "octets")
    assert shapes.combines("wstring", "echo", "strings") and not shapes.combines("wstring", "twoway", "octets")
    assert not shapes.combines("dii", "oneway", "octets") and shapes.combines("in", "oneway", "octets")
    for bad in ("ami", "ami-0", "ami-x", "outt", "IN"):
        with pytest.raises(ValueError):
            shapes.check_shape(bad)
    with pytest.raises(ValueError, match="at most 256"):
        shapes.check_shape("ami-300")


def test_the_baseline_of_a_shape_moves_the_same_bytes():
    assert shapes.baseline_shape("inout", "twoway") == ("in", "echo")
    assert shapes.baseline_shape("out", "twoway") == ("in", "twoway")
    assert shapes.baseline_shape("dii", "echo") == ("in", "echo")
    assert shapes.baseline_shape("collocated", "twoway") is None


def test_a_campaign_expands_each_shape_with_its_modes_and_types(write_campaign):
    c = read_campaign(write_campaign(CAMPAIGN))
    groups = {(g.shape, g.mode, g.payload_type) for g in c.point_groups()}
    # in and dii and ami-8: both modes, octets; out: twoway only; wstring: both modes at strings, and the in call
    # at strings beside it though the campaign lists octets only.
    assert groups == {("in", "twoway", "octets"), ("in", "echo", "octets"), ("in", "twoway", "strings"),
                      ("in", "echo", "strings"), ("out", "twoway", "octets"), ("wstring", "twoway", "strings"),
                      ("wstring", "echo", "strings"), ("dii", "twoway", "octets"), ("dii", "echo", "octets"),
                      ("ami-8", "twoway", "octets"), ("ami-8", "echo", "octets")}
    assert len(c.point_groups()) == len(groups) * 2


def test_a_shape_is_skipped_for_a_target_that_lacks_it_with_the_reason(write_campaign):
    c = read_campaign(write_campaign(CAMPAIGN))
    by_name = {t.name: t for t in c.targets}
    group = next(g for g in c.point_groups() if g.shape == "dii")
    assert c.unsupported_load(by_name["omniorb"], group) is None
    why = c.unsupported_load(by_name["omniorbpy"], group)
    assert why.startswith("omniorbpy lacks shape dii: omniORBpy has no dynamic invocation interface"), why
    assert c.unsupported_load(by_name["c-socket"], group) == "c-socket does not make shape dii"
    ami = next(g for g in c.point_groups() if g.shape == "ami-8")
    assert c.unsupported_load(by_name["omniorb"], ami.replace(clients=2)).startswith("shape ami-8 is measured with")


@pytest.mark.parametrize("value, words", [('["in", "sideways"]', "shapes[1]"),
                                          ('["in", "ami-0"]', "shapes[1]"),
                                          ('["in", "in"]', "non-unique")])
def test_a_bad_shape_names_the_key(write_campaign, value, words):
    msg = campaign_error(write_campaign, CAMPAIGN.replace('["in", "out", "wstring", "dii", "ami-8"]', value))
    assert words in msg, msg


def test_a_shape_without_a_mode_of_the_campaign_is_refused(write_campaign):
    msg = campaign_error(write_campaign, CAMPAIGN.replace('["twoway", "echo"]', '["oneway"]'))
    assert "shapes[1]" in msg and "'out'" in msg and "takes modes ['twoway']" in msg, msg


def test_every_orb_descriptor_claims_its_shapes():
    targets = read_targets()
    # omniORB makes every shape but promise pipelining, which needs calls that return capabilities (Cap'n Proto's).
    corba = [k for k in shapes.KINDS if k not in ("pipelined", "chained")]
    assert "ami" in targets["omniorb"].shapes and len(targets["omniorb"].shapes) == len(corba)
    assert targets["capnp-cpp"].shapes == ("in", "pipelined", "chained")
    # JacORB's AMI goes through its own IDL compiler's stubs, which run on JacORB alone.
    assert "ami" in targets["jacorb"].shapes and "ami" not in dict(targets["jacorb"].lacking_shapes)
    for java in ("jacorb", "glassfish", "yoko"):
        assert "dsi" in targets[java].shapes
    for java in ("glassfish", "yoko"):
        assert "ami" not in targets[java].shapes and "idlj" in dict(targets[java].lacking_shapes)["ami"]
    assert targets["c-socket"].shapes == ("in",)


def _summary(point: Point) -> PointSummary | None:
    return None  # shape_costs reads only which points there are and their trial p50s


def test_the_cost_of_a_shape_is_the_geometric_ratio_over_launches():
    base = Point(placement="same-core", mode="twoway", payload_type="octets", payload_bytes=1024, target="omniorb")
    out = base.replace(shape="out")
    # Two launches of two trials: the in call at 10 us, out at 20 and 40 us in launch 0 and at 30 us in launch 1.
    trial_p50 = {base: {(0, 0): 10_000.0, (0, 1): 10_000.0, (1, 0): 10_000.0, (1, 1): 10_000.0},
                 out: {(0, 0): 20_000.0, (0, 1): 40_000.0, (1, 0): 30_000.0, (1, 1): 30_000.0}}
    cost, = shape_costs({base: _summary(base), out: _summary(out)}, trial_p50)
    # Launch 0's median log ratio is log(sqrt(2 x 4)), launch 1's log 3: their mean, brought back.
    want = math.exp((math.log(math.sqrt(8)) + math.log(3)) / 2)
    assert cost.ratio.estimate == pytest.approx(want) and cost.ratio.launches == 2
    assert 0 < cost.ratio.low < want < cost.ratio.high
    assert cost.added_ns.estimate == pytest.approx((20_000 + 20_000) / 2)


def test_a_shape_without_its_in_call_says_so():
    base = Point(placement="same-core", mode="twoway", payload_type="octets", payload_bytes=1, target="jacorb")
    dii = base.replace(shape="dii")
    cost, = shape_costs({dii: _summary(dii)}, {dii: {(0, 0): 5.0}})
    assert cost.ratio is None and "in call was not measured" in cost.why_missing


def test_an_older_run_reads_as_the_in_call():
    manifest, rows = upgrade({"schema_version": 12}, [{"mode": "twoway", "payload_type": "octets"}])
    assert manifest["schema_version"] == shapes_schema() and "shape" not in rows[0]
    point = Point.from_record({"placement": "same-core", "mode": "twoway", "payload_type": "octets",
                               "payload_bytes": 1, "target": "omniorb"})
    assert point.shape == "in" and point.slug == "same-core-twoway-octets-1B-omniorb"
    assert point.replace(shape="ami-8").slug == "same-core-twoway-ami-8-octets-1B-omniorb"
    key = point_key({"placement": "same-core", "mode": "twoway", "payload_type": "octets", "payload_bytes": "1"})
    assert key[-1] == "in" and point_label((*key[:-1], "dii")) == "same-core twoway 1 B dii"


def shapes_schema() -> int:
    from orbench.results.upgrade import SCHEMA_VERSION
    return SCHEMA_VERSION


def test_the_translator_leaves_the_corba_only_part_out():
    module = parse_file(repo_root() / "idl" / "orbench.idl")
    names = {d.name for d in module.definitions}
    assert "Bench" in names and "Shapes" not in names and "Refused" not in names
    text = "module m {\n#ifndef ORBENCH_TRANSLATED\n  exception E { long x; };\n#ifdef X\n#endif\n#endif\n" \
           "  typedef sequence<octet> O;\n};\n"
    assert [d.name for d in parse(text).definitions] == ["O"]
    with pytest.raises(IdlError, match="not closed"):
        parse("module m {\n#ifndef ORBENCH_TRANSLATED\n typedef sequence<octet> O;\n};\n")

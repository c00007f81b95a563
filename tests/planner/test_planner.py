"""The service planner: seed B's argument through the planner, hand-worked queueing and packing cases,
costs, the roadmap, bad plan files and the CLI."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from configurator.catalog.errors import FileError
from configurator.catalog.loader import default_catalog
from configurator.cli import main
from configurator.engine.planner import Plan, PlanResult, load_plan, parse_plan, plan_service, plan_to_yaml
from configurator.engine.planner.packing import lower_bound, pack, placeable
from configurator.engine.planner.queueing import (
    devices_needed,
    erlang_b,
    erlang_c,
    mean_wait_hours,
    servers_for_wait,
    wait_quantile_hours,
)
from configurator.paths import resource
from tests.helpers import mig_spec

SEED_B = resource("plans", "seed-b-service.yaml")
RTX, H100 = "RTX PRO 6000 server", "HGX H100"


@pytest.fixture(scope="module")
def seed_b() -> PlanResult:
    return plan_service(load_plan(SEED_B), base_dir=SEED_B.parent)


# ---- seed B's argument ------------------------------------------------------------------------------------


def test_30b_lora_fits_rtx_pro_6000_not_h100(seed_b: PlanResult) -> None:
    """Seed B: 77.4 GB 'on RTX PRO 6000 (96 GB): fits ... on H100 SXM (80 GB): does not fit comfortably'."""
    rtx = seed_b.cell("30B LoRA", f"{RTX} / whole card")
    h100 = seed_b.cell("30B LoRA", f"{H100} / whole card")
    assert rtx.fits and rtx.status == "fits"
    assert not h100.fits and h100.status in ("tight", "does-not-fit")
    assert rtx.peak_gb == h100.peak_gb  # the same job: only the card differs


def test_7b_lora_fits_a_24_gb_instance_four_per_card(seed_b: PlanResult) -> None:
    """Seed B: 'a 7B low-rank fine-tune fits in a 24 GB instance ... the same card serves four such jobs'."""
    cell = seed_b.cell("7B LoRA", f"{RTX} / 1g.24gb")
    assert cell.fits
    assert cell.capacity_gb == pytest.approx(24.8, abs=0.1)  # 23.12 GiB as nvidia-smi shows the 1g.24gb
    assert cell.devices_per_card == 4


def test_mig_raises_small_job_capacity_up_to_four_times(seed_b: PlanResult) -> None:
    """Seed B: 'effective capacity for the small-job tail rises up to four times'. The card holds four
    isolated tenants at once instead of one; the compute model gives each a quarter of the card, so jobs
    per day per card stay within [1x, 4x] of the whole card's."""
    whole = seed_b.cell("7B LoRA", f"{RTX} / whole card")
    mig = seed_b.cell("7B LoRA", f"{RTX} / 1g.24gb")
    assert mig.devices_per_card / whole.devices_per_card == 4
    assert whole.jobs_per_day_per_card and mig.jobs_per_day_per_card
    ratio = mig.jobs_per_day_per_card / whole.jobs_per_day_per_card
    assert 0.99 <= ratio <= 4.0
    # without MIG a 7B job holds the whole card: a quarter of its memory is what it uses
    assert whole.peak_gb is not None and whole.capacity_gb is not None
    assert whole.peak_gb < whole.capacity_gb / 4


@pytest.mark.parametrize("node", [RTX, H100])
def test_full_8b_needs_two_cards_of_either_kind(seed_b: PlanResult, node: str) -> None:
    """Seed B: '8B model: 8e9 x 16 = 128 GB -> two cards minimum on either part'."""
    assert seed_b.cell("8B full fine-tune", f"{node} / whole card").status == "does-not-fit"
    # two cards hold the peak: the minimum. Whether they are planned on depends on the band: a full fine-tune
    # under the default stack (FSDP2, no measured run) has a wide one, so a pair reads tight and the planner
    # plans on the next group that fits clearly.
    pair = seed_b.cell("8B full fine-tune", f"{node} / 2 cards")
    assert pair.status in ("fits", "tight") and pair.peak_gb <= pair.capacity_gb
    planned = [c for c in seed_b.matrix if c.job_class == "8B full fine-tune" and c.fits and c.device.startswith(node)]
    assert planned and all(" cards" in c.device for c in planned)


def test_seed_b_plan_ranks_fleets_that_serve_every_class(seed_b: PlanResult) -> None:
    assert seed_b.fleets and seed_b.fleets[0].feasible
    best = seed_b.fleets[0]
    routed = {r.job_class for r in best.routes if r.device}
    # sized for month 18 (seed B: "size to that"), so the 70B tier that starts in month 10 is served too
    assert seed_b.size_for_month == 18
    assert routed == {"7B LoRA", "30B LoRA", "8B full fine-tune", "70B LoRA", "30B full fine-tune"}
    assert best.out_of_capacity_month is None and best.stops_fitting_month is None
    assert seed_b.search.candidates > 100
    # 30B LoRA never lands on a single H100 (it does not fit one)
    for f in seed_b.fleets:
        assert all(not (r.job_class == "30B LoRA" and r.device == f"{H100} / whole card") for r in f.routes)


def _plan(**over: object) -> dict:
    plan: dict = {
        "name": "test",
        "assumptions": {"compute_rates": "estimated"},
        "service": {"utilisation_target": 0.7, "hours_per_day": 24},
        "classes": [{"name": "7B LoRA", "model": "mistral-7b", "method": "lora", "tokens_per_job": 20e6,
                     "jobs_per_day": 40}],
        "nodes": [{"name": "RTX", "chassis": "supermicro-sys-521ge-tnrt", "card": "rtx-pro-6000-server",
                   "max_nodes": 3}],
    }  # fmt: skip
    plan.update(over)
    return plan


def test_roadmap_reports_the_month_a_fleet_stops_fitting() -> None:
    """A 70B LoRA tier from month 7 needs two RTX PRO 6000 (FSDP); a one-card node cannot hold it."""
    classes = [
        {"name": "7B LoRA", "model": "mistral-7b", "tokens_per_job": 20e6, "jobs_per_day": 20},
        {"name": "70B LoRA", "model": "llama-3.3-70b", "tokens_per_job": 5e6, "jobs_per_day": 1, "from_month": 7},
    ]
    nodes = [{"name": "RTX", "chassis": "supermicro-sys-521ge-tnrt", "card": "rtx-pro-6000-server",
              "cards_per_node": 1, "max_nodes": 4}]  # fmt: skip
    result = plan_service(Plan.model_validate(_plan(classes=classes, nodes=nodes)))
    assert result.fleets
    for f in result.fleets:
        assert f.stops_fitting_month == 7
        assert [m.fits_largest for m in f.months][:6] == [True] * 6
        assert "70B LoRA" in f.months[6].unserved


def test_roadmap_out_of_capacity_month_by_hand() -> None:
    """Growth of 10 % a month on one class: the first month whose devices needed,
    ceil(lambda (1.1)^(m-1) S / (U H)), exceed the fleet's cards."""
    data = _plan(roadmap={"months": 18, "growth_per_month": 0.1})
    data["nodes"][0]["max_nodes"] = 1
    result = plan_service(Plan.model_validate(data))
    fleet = result.fleets[0]
    s = result.cell("7B LoRA", "RTX / whole card").service_hours
    assert s is not None
    cards = fleet.totals.cards
    need = [math.ceil(40 * 1.1 ** (m - 1) * s / (0.7 * 24) - 1e-9) for m in range(1, 19)]
    expected = next(m for m in range(1, 19) if need[m - 1] > cards)
    assert fleet.out_of_capacity_month == expected
    assert fleet.stops_fitting_month is None


def test_cost_per_job_by_hand() -> None:
    """Cost per month = (capital / life months + idle kW x PUE x H x days x price) x nodes + busy card-hours x
    (power limit - idle) x PUE x price; per job over the jobs per month. Idle draw is measured (issue 24: every
    card at its power limit around the clock was an upper bound the ranking leaned on)."""
    data = _plan(prices={"supermicro-sys-521ge-tnrt": 20000, "rtx-pro-6000-server": 8000}, currency="EUR")
    data["service"].update({"service_life_years": 4, "power_price_per_kwh": 0.2, "pue": 1.25, "days_per_month": 30})
    result = plan_service(Plan.model_validate(data))
    f = result.fleets[0]
    cat = default_catalog()
    platform = cat.chassis["supermicro-sys-521ge-tnrt"].platform_power_w.value
    kw = (platform + 8 * 600) / 1000  # type: ignore[operator]
    idle_kw = (platform + 8 * 34) / 1000  # type: ignore[operator]  # resources/plans/idle-power.yaml: 34 W
    per_node = (20000 + 8 * 8000) / 48 + idle_kw * 1.25 * 24 * 30 * 0.2
    s = result.cell("7B LoRA", "RTX / whole card").service_hours
    assert s is not None and all(r.device == "RTX / whole card" for r in f.routes)
    busy = 40 * s * 30 * (600 - 34) / 1000 * 1.25 * 0.2
    nodes = f.totals.nodes
    assert f.totals.capital == pytest.approx(nodes * 84000)
    assert f.totals.power_kw == pytest.approx(nodes * kw)
    assert f.totals.idle_kw == pytest.approx(nodes * idle_kw)
    assert f.totals.cost_per_month == pytest.approx(nodes * per_node + busy)
    assert f.totals.cost_per_job == pytest.approx((nodes * per_node + busy) / (40 * 30))
    assert result.currency == "EUR"


def test_price_list_file_is_read(tmp_path: Path) -> None:
    prices = tmp_path / "prices.yaml"
    prices.write_text("currency: EUR\ntax_rate: 0.19\nparts: {supermicro-sys-521ge-tnrt: 20000, "
                      "rtx-pro-6000-server: 8000}\nservices: [{name: Assembly, price: 450}]\n")  # fmt: skip
    plan = tmp_path / "plan.yaml"
    data = _plan(price_list="prices.yaml")
    data["service"]["power_price_per_kwh"] = 0.2
    plan.write_text(plan_to_yaml(Plan.model_validate(data)))
    result = plan_service(load_plan(plan), base_dir=tmp_path)
    assert result.currency == "EUR"
    assert result.fleets[0].totals.capital == pytest.approx(result.fleets[0].totals.nodes * 84000)


def test_routing_sends_each_class_to_a_device_that_fits(seed_b: PlanResult) -> None:
    fits = {(c.job_class, c.device) for c in seed_b.matrix if c.fits}
    for f in seed_b.fleets:
        for r in f.routes:
            if r.device:
                assert (r.job_class, r.device) in fits
        assert sum(u.busy_card_hours_per_day for u in f.use) <= sum(u.capacity_card_hours_per_day for u in f.use)


def _tenants_plan() -> Plan:
    """Four isolated tenants, each a 7B LoRA class of one job a day, on one-card nodes that may use MIG."""
    classes = [{"name": f"tenant {t}", "model": "mistral-7b", "tokens_per_job": 20e6, "jobs_per_day": 1}
               for t in "ABCD"]  # fmt: skip
    nodes = [{"name": "RTX", "chassis": "supermicro-sys-521ge-tnrt", "card": "rtx-pro-6000-server",
              "cards_per_node": 1, "max_nodes": 4, "mig_layouts": ["all-1g"]}]  # fmt: skip
    return Plan.model_validate(_plan(classes=classes, nodes=nodes))


def test_mig_serves_four_tenants_on_one_card() -> None:
    """Seed B: 'without partitioning, that job holds a whole card ... with four-way partitioning, the same
    card serves four such jobs'. Each tenant needs a device of its own: four whole cards, or one card of
    four 1g.24gb instances; the planner's best fleet is the one card, packed with no stranded slice."""
    result = plan_service(_tenants_plan())
    best = result.fleets[0]
    assert best.feasible and best.totals.cards == 1
    assert best.nodes[0].mig_layout == ["1g.24gb"] * 4 and best.nodes[0].mig_cards_per_node == 1
    assert sorted(r.device for r in best.routes) == ["RTX / 1g.24gb"] * 4
    (packing,) = best.packing
    assert packing.demand == {"1g.24gb": 4} and len(packing.cards) == 1 and packing.stranded_compute_slices == 0
    whole = [f for f in result.fleets if f.feasible and not f.nodes[0].mig_layout]
    assert whole and min(f.totals.cards for f in whole) == 4  # four times the cards without MIG


# ---- queueing: hand-worked ----------------------------------------------------------------------------------


def test_erlang_b_recursion_by_hand() -> None:
    assert erlang_b(1, 1.0) == pytest.approx(0.5)  # a / (1 + a)
    assert erlang_b(2, 1.0) == pytest.approx(0.2)  # (a^2/2) / (1 + a + a^2/2) = 0.5 / 2.5


def test_erlang_c_by_hand() -> None:
    # M/M/1: P(wait) = rho; W_q = rho / (1 - rho) x S
    assert erlang_c(1, 0.5) == pytest.approx(0.5)
    assert mean_wait_hours(1, 0.5, 2.0) == pytest.approx(2.0)
    # M/M/2 at a = 1: C = 1/3 (B = 0.2; C = 2 x 0.2 / (2 - 1 x 0.8)); W_q = C x S / (c - a)
    assert erlang_c(2, 1.0) == pytest.approx(1 / 3)
    assert mean_wait_hours(2, 1.0, 1.5) == pytest.approx(0.5)
    # M/M/3 at a = 2: C = 4/9
    assert erlang_c(3, 2.0) == pytest.approx(4 / 9)
    assert erlang_c(2, 2.0) == 1.0 and math.isinf(mean_wait_hours(2, 2.0, 1.0))


def test_devices_needed_by_hand() -> None:
    # 48 jobs a day over 24 h, 1 h each: a = 2 erlangs; at U = 0.8: 2.5 -> 3 devices
    assert devices_needed(48, 1.0, 0.8, 24) == 3
    # wait target 0.1 h: c = 3 waits 4/9 h, c = 4 waits C(4, 2) / 2 = (4/23) / 2 = 0.087 h
    assert servers_for_wait(2.0, 1.0, 0.1) == 4
    assert mean_wait_hours(4, 2.0, 1.0) == pytest.approx(2 / 23)
    # a class's wait target applies to the p95 (issue 24; it was the mean): t95 = S ln(C / 0.05) / (c - a);
    # c = 4: C = 4/23, ln(3.48) / 2 = 0.62 h; c = 5: C = 0.0597, ln(1.194) / 3 = 0.059 h <= 0.1
    assert wait_quantile_hours(4, 2.0, 1.0) == pytest.approx(math.log((4 / 23) / 0.05) / 2)
    assert devices_needed(48, 1.0, 0.8, 24, wait_target_hours=0.1) == 5
    # 8 hours of operation triple the load of the same 48 jobs: a = 6, at U = 0.8: 7.5 -> 8
    assert devices_needed(48, 1.0, 0.8, 8) == 8
    assert devices_needed(0, 1.0, 0.8, 24) == 0


def test_erlang_c_is_stable_for_thousands_of_servers() -> None:
    c = erlang_c(5000, 4900.0)
    assert 0.0 < c < 1.0


# ---- MIG packing: hand-worked ----------------------------------------------------------------------------------


def test_pack_rtx_two_g_and_five_one_g() -> None:
    """RTX PRO 6000 (12-unit grid: 1g = 3 units, 2g = 6): 2g + 5 x 1g = 21 units -> 2 cards,
    2g + 1g + 1g and 1g x 3, one 1g position left free (usable, not stranded)."""
    p = pack(mig_spec("rtx-pro-6000-server"), "rtx-pro-6000-server", {"2g.48gb": 1, "1g.24gb": 5})
    assert [c.profiles for c in p.cards] == [["2g.48gb", "1g.24gb", "1g.24gb"], ["1g.24gb"] * 3]
    assert p.lower_bound == 2
    assert [c.free_compute_slices for c in p.cards] == [0, 1]
    assert p.stranded_compute_slices == 0


def test_pack_rtx_uniform_layouts() -> None:
    spec = mig_spec("rtx-pro-6000-server")
    assert len(pack(spec, "x", {"1g.24gb": 4}).cards) == 1
    assert len(pack(spec, "x", {"1g.24gb": 9}).cards) == 3
    three = pack(spec, "x", {"2g.48gb": 3})  # at most two 2g per card
    assert [c.profiles for c in three.cards] == [["2g.48gb", "2g.48gb"], ["2g.48gb"]]
    assert three.cards[1].free_compute_slices == 2 and three.stranded_compute_slices == 0


def test_pack_h100_strands_a_slice() -> None:
    """H100 (8 memory slices, 7 compute): 3g.40gb starts at 0 or 4 and takes 4 slices, so two fill the
    grid with 6 of 7 compute slices: one stranded. 4g + 3g uses all 7."""
    spec = mig_spec("h100-sxm")
    two = pack(spec, "h100-sxm", {"3g.40gb": 2})
    assert len(two.cards) == 1 and two.stranded_compute_slices == 1
    full = pack(spec, "h100-sxm", {"4g.40gb": 1, "3g.40gb": 1})
    assert len(full.cards) == 1 and full.stranded_compute_slices == 0 and full.cards[0].free_compute_slices == 0
    assert len(pack(spec, "h100-sxm", {"4g.40gb": 2}).cards) == 2  # one 4g per card
    assert lower_bound(spec, {"1g.10gb": 15}) == 3  # seven 1g.10gb per card


def test_pack_unknown_profile_is_a_problem_not_a_crash() -> None:
    p = pack(mig_spec("rtx-pro-6000-server"), "x", {"9g.999gb": 2, "1g.24gb": 1})
    assert p.problems and len(p.cards) == 1


def test_placeable_follows_the_grid() -> None:
    spec = mig_spec("rtx-pro-6000-server")
    assert placeable(spec, ["2g.48gb", "1g.24gb", "1g.24gb"])
    assert not placeable(spec, ["2g.48gb", "1g.24gb", "1g.24gb", "1g.24gb"])


# ---- bad plan files: file, line, field -----------------------------------------------------------------------

GOOD = SEED_B.read_text()


def _error(text: str, tmp_path: Path) -> str:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(FileError) as info:
        load_plan(path)
    return str(info.value)


def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ("card: rtx-pro-6000-server", "card: rtx-pro-6000-servr", "nodes[0].card"),
        ("chassis: hgx-8", "chassis: hgx-9", "nodes[1].chassis"),
        ("model: mistral-7b", "model: mistral-7", "classes[0].model"),
        ("jobs_per_day: 120", "jobs_per_dya: 120", "classes[0].jobs_per_dya"),
        ("jobs_per_day: 120", "jobs_per_day: -3", "classes[0].jobs_per_day"),
        (
            "mig_layouts: [all-1g, all-balanced, all-2g]",
            "mig_layouts: [all-1g, [2g.48gb, 2g.48gb, 1g.24gb]]",
            "nodes[0].mig_layouts[1]",
        ),
        ("mig_layouts: [all-1g, all-balanced, all-2g]", "mig_layouts: [all-3g]", "nodes[0].mig_layouts[0]"),
        ("utilisation_target: 0.7", "utilisation_target: 1.7", "service.utilisation_target"),
    ],
)
def test_bad_plans_name_file_line_and_field(tmp_path: Path, old: str, new: str, field: str) -> None:
    assert old in GOOD
    text = GOOD.replace(old, new, 1)
    message = _error(text, tmp_path)
    line = _line_of(text, new)
    assert f"bad.yaml:{line}: {field}" in message, message


def test_plan_without_job_size_says_so(tmp_path: Path) -> None:
    text = GOOD.replace("    tokens_per_job: 20e6\n    jobs_per_day: 120", "    jobs_per_day: 120", 1)
    message = _error(text, tmp_path)
    assert "tokens_per_job or steps" in message and "classes[0]" in message


def test_plan_not_yaml_or_empty(tmp_path: Path) -> None:
    assert "not valid YAML" in _error("classes: [\n", tmp_path)
    assert "empty file" in _error("", tmp_path)
    assert "a list at the top level" in _error("- 1\n", tmp_path)


def test_missing_price_list_names_the_key(tmp_path: Path) -> None:
    text = GOOD.replace("schema_version: 1\n", "schema_version: 1\nprice_list: nowhere.yaml\n", 1)
    message = _error(text, tmp_path)
    assert f"bad.yaml:{_line_of(text, 'price_list: nowhere')}: price_list" in message and "file not found" in message


def test_node_type_that_is_not_a_valid_build(tmp_path: Path) -> None:
    """Eight 600 W cards in a server whose PSUs cannot carry them: the node type is refused, with the reason."""
    text = GOOD.replace("chassis: supermicro-sys-521ge-tnrt", "chassis: generic-server-8", 1)
    message = _error(text, tmp_path)
    assert "nodes[0]" in message and "not a valid build" in message


def test_node_from_a_build_file() -> None:
    """A node type given as a build file: its chassis, card count and MIG layout (four 1g.24gb)."""
    from configurator.engine.planner.nodes import resolve_nodes

    build = resource("builds", "seed-mig-four-tenants.yaml")
    data = _plan(nodes=[{"name": "tenants", "build": str(build), "max_nodes": 4}])
    data["classes"][0]["jobs_per_day"] = 10
    plan = Plan.model_validate(data)
    nodes, problems = resolve_nodes(plan, default_catalog(), None)
    assert not problems
    assert nodes[0].cards_per_node == 1 and nodes[0].layouts == (("1g.24gb",) * 4,)
    result = plan_service(plan)
    assert not result.errors and result.fleets[0].feasible


def test_plan_round_trips_through_yaml() -> None:
    plan = load_plan(SEED_B)
    again = parse_plan(plan_to_yaml(plan), "again.yaml", base_dir=SEED_B.parent)
    assert again == plan


# ---- the command line ------------------------------------------------------------------------------------------


def test_cli_plan_prints_a_readable_report(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", str(SEED_B)]) == 0
    out = capsys.readouterr().out
    assert "Classes × devices" in out and "Fleets:" in out and "#1 " in out
    assert "stops fitting the largest job" in out


def test_cli_plan_json_is_the_plan_result(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", str(SEED_B), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    result = PlanResult.model_validate(data)
    assert result.matrix and result.fleets
    assert {"fits", "service_hours"} <= set(data["matrix"][0])
    assert "stops_fitting_month" in data["fleets"][0] and "out_of_capacity_month" in data["fleets"][0]


def test_cli_plan_bad_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(GOOD.replace("card: h100-sxm", "card: h100", 1))
    assert main(["plan", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.yaml:" in err and "nodes[1].card" in err and "Traceback" not in err


def test_search_over_worker_processes_ranks_as_one_process() -> None:
    """Larger searches split the candidate range over processes; the ranking is the same."""
    from configurator.engine.planner.search import search
    from configurator.engine.planner.service import prepare

    pre = prepare(load_plan(SEED_B), base_dir=SEED_B.parent)
    one = search(pre.model, 1, 10, processes=1)
    two = search(pre.model, 1, 10, processes=2)
    assert [b[0] for b in one[0]] == [b[0] for b in two[0]]
    assert one[1] == two[1] and one[2] == two[2] and two[4] == 2


def test_a_fleet_node_opens_as_a_valid_build(seed_b: PlanResult) -> None:
    """The candidate a user opens in the editor: the node's cards, its MIG layout, the routed classes as jobs."""
    from configurator.engine import evaluate
    from configurator.engine.planner.buildout import node_build

    plan = load_plan(SEED_B)
    for fleet in seed_b.fleets[:3]:
        for count in fleet.nodes:
            build = node_build(plan, fleet, count.node, base_dir=SEED_B.parent)
            assert len(build.cards) == count.cards_per_node
            assert sum(1 for c in build.cards if c.mig) == count.mig_cards_per_node
            result = evaluate(build, base_dir=SEED_B.parent)
            assert not [c for c in result.checks if c.severity == "error"], result.checks
            assert all(j.fits for j in result.jobs)
    with pytest.raises(ValueError, match="no node type"):
        node_build(plan, seed_b.fleets[0], "nowhere")


def test_node_build_places_jobs_on_mig_instances() -> None:
    from configurator.engine import evaluate
    from configurator.engine.planner.buildout import node_build

    plan = _tenants_plan()
    best = plan_service(plan).fleets[0]
    build = node_build(plan, best, "RTX")
    assert build.cards[0].mig is not None and len(build.cards[0].mig) == 4
    assert sorted(str(j.cards[0]) for j in build.jobs) == [f"slot=1 instance={i}" for i in range(4)]
    evaluated = evaluate(build)
    assert not [c for c in evaluated.checks if c.severity == "error"]
    assert all(j.fits for j in evaluated.jobs)


def test_planner_and_its_text_report_import_no_qt() -> None:
    """The planner is engine code: planning seed B and printing its report loads neither Qt nor pyqtgraph."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from configurator.cli import main\n"
        f"assert main(['plan', {str(SEED_B)!r}]) == 0\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'shiboken6')]\n"
        "assert not bad, bad\n"
    )
    root = Path(__file__).resolve().parents[2]
    subprocess.run([sys.executable, "-c", code], check=True, cwd=root, capture_output=True)


def test_demand_month_by_month() -> None:
    """jobs_per_day_by_month sets each roadmap month; its last value holds after the list; none before from_month."""
    from configurator.engine.planner.fleet import class_demand

    assert [class_demand(0, (10, 20, 40), 0.5, 1, m) for m in (1, 2, 3, 4, 9)] == [10, 20, 40, 40, 40]
    assert class_demand(10, None, 0.1, 3, 2) == 0.0 and class_demand(10, None, 0.1, 3, 5) == pytest.approx(12.1)
    data = _plan(search={"size_for_month": 3})
    data["classes"][0] = {**data["classes"][0], "jobs_per_day": None, "jobs_per_day_by_month": [10, 20, 40]}
    result = plan_service(Plan.model_validate(data))
    assert result.classes[0].jobs_per_day == 40
    both = _plan()
    both["classes"][0]["jobs_per_day_by_month"] = [1, 2]
    with pytest.raises(ValueError, match="jobs_per_day or jobs_per_day_by_month"):
        Plan.model_validate(both)


def test_plan_edits_validate_and_replan() -> None:
    """The edits a planner window makes: each gives a new valid plan, or a refusal naming the field."""
    from configurator.engine.planner import editing

    plan = load_plan(SEED_B)
    more = editing.set_class(plan, 0, jobs_per_day=240)
    assert more.classes[0].jobs_per_day == 240 and plan.classes[0].jobs_per_day == 120
    priced = editing.set_price(editing.set_price(more, "h100-sxm", 25000), "hgx-8", 60000)
    assert priced.prices["h100-sxm"] == 25000 and priced.prices["hgx-8"] == 60000
    unpriced = editing.set_price(priced, "hgx-8", None).prices
    assert "hgx-8" not in unpriced and unpriced["h100-sxm"] == 25000
    fewer = editing.remove_node(priced, 0)
    assert [n.name for n in fewer.nodes] == [H100]
    with pytest.raises(editing.EditRefused, match="utilisation_target"):
        editing.set_fields(plan, "service", utilisation_target=2)
    with pytest.raises(editing.EditRefused, match="no job class 9"):
        editing.set_class(plan, 9, jobs_per_day=1)
    with pytest.raises(editing.EditRefused, match="classes"):
        one = plan
        for _ in range(len(plan.classes) - 1):
            one = editing.remove_class(one, 0)
        editing.remove_class(one, 0)
    added = editing.add_class(plan, {"name": "13B LoRA", "model": "llama-2-13b", "tokens_per_job": 1e7,
                                     "jobs_per_day": 5})  # fmt: skip
    result = plan_service(added, base_dir=SEED_B.parent)
    assert any(c.job_class == "13B LoRA" and c.fits for c in result.matrix)


def test_racks_hold_whole_nodes() -> None:
    """A 15 kW rack holds two 6.5 kW RTX PRO 6000 servers (1,700 W platform + 8 x 600 W): 3 nodes, 2 racks."""
    data = _plan()
    data["service"]["rack_kw"] = 15
    data["classes"][0]["jobs_per_day"] = 200
    result = plan_service(Plan.model_validate(data))
    f = result.fleets[0]
    assert f.totals.power_kw == pytest.approx(6.5 * f.totals.nodes)
    assert f.totals.racks == math.ceil(f.totals.nodes / 2)

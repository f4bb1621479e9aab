"""Strategy parameters: declared with defaults, validated when a strategy is made, shown in its label and frames."""

import pytest

import sim
import strategies
from strategies import Strategy
from strategies.base import Param, StrategyParameterError
from strategies.registry import UnknownStrategy, make, parse


class Careful(Strategy):
    name = "careful"
    PARAMS = {**Strategy.PARAMS, "max_loans": Param(2, "loans a Chairman takes at most"), "risk": Param(0.5, "x")}


def test_defaults_are_read_without_init_and_values_with_it():
    assert Careful.PARAMS["max_loans"].default == 2
    plain = Careful()
    assert plain.max_loans == 2 and plain.risk == 0.5 and plain.label == "careful"
    tuned = Careful(max_loans=4, risk=1)  # an int for a float parameter is accepted as a float
    assert tuned.max_loans == 4 and tuned.risk == 1.0 and isinstance(tuned.risk, float)
    assert tuned.label == "careful(max_loans=4, risk=1.0)"
    assert Careful(max_loans=2).label == "careful"  # a default value is not part of the label


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"max_bid": 3}, f"strategy 'careful' has no parameter 'max_bid' (known: {', '.join(sorted(Careful.PARAMS))})"),
        ({"max_loans": 2.5}, "strategy 'careful' parameter 'max_loans': expected int, got 2.5"),
        ({"max_loans": True}, "strategy 'careful' parameter 'max_loans': expected int, got True"),
        ({"risk": "high"}, "strategy 'careful' parameter 'risk': expected float, got 'high'"),
    ],
)
def test_bad_parameters_fail_in_one_line(params, message):
    with pytest.raises(StrategyParameterError) as err:
        Careful(**params)
    assert str(err.value) == message


def test_registry_specs_carry_parameters():
    assert parse("balanced") == ("balanced", {})
    assert parse("careful:max_loans=3, risk=0.25,mode=fast,on=true") == (
        "careful",
        {"max_loans": 3, "risk": 0.25, "mode": "fast", "on": True},
    )
    with pytest.raises(UnknownStrategy, match="key=value"):
        parse("careful:max_loans")
    strategies.register("careful")(Careful)
    try:
        made = make("careful:max_loans=5")
        assert isinstance(made, Careful) and made.max_loans == 5
        assert make(Careful, risk=0.1).risk == 0.1
    finally:
        strategies.REGISTRY.pop("careful")


def test_frames_name_a_tuned_strategy_by_its_label():
    rules = sim.Rules.default(4)
    res = sim.play(rules, [Careful(max_loans=1), Careful(), "balanced", "random"], n_games=3, seed=1)
    assert res.seats.filter(res.seats["seat"] == 0)["strategy"].unique().to_list() == ["careful(max_loans=1)"]
    assert res.seats.filter(res.seats["seat"] == 1)["strategy"].unique().to_list() == ["careful"]
    assert res.meta["strategies"] == ["careful(max_loans=1)", "careful", "balanced", "random"]

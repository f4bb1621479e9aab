import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

# A run starts one worker per ``runner.GAMES_PER_WORKER`` games it has left; the tests' runs are small, and those that
# ask for ``--jobs 2`` do so to play on two workers (the same games whatever the jobs): every run of the suite, in
# process or in a subprocess, starts the workers it asks for. ``test_runner_faults`` checks the threshold itself.
os.environ["EASTINDIA_GAMES_PER_WORKER"] = "1"
# The built-in strategies' answers are taken unchecked outside the tests (sim.agents.CHECK_BUILTINS); the suite checks
# them as it checks a plug-in's, so that a built-in answering illegally fails its tests.
os.environ["EASTINDIA_CHECK_BUILTINS"] = "1"


# a test that loads a strategy plugin registers it for the whole process; put the registry back after each
# test so that tests of the built-in strategies (e.g. every parameter documented) do not depend on which tests ran
# before them in the same worker (test_experiment_params.py's `careful` plugin broke test_strategies.py under -n 2)
import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _restore_strategy_registry():
    from strategies import REGISTRY

    saved = dict(REGISTRY)
    yield
    REGISTRY.clear()
    REGISTRY.update(saved)


# The engine path a test plays (sim/kernels.py): ``kernels.use`` runs the compiled kernels in a batch of at least
# ``MIN_GAMES`` games, and in any batch once a kernel has loaded in the process, so under xdist a small hand-built
# position's path would depend on which tests its worker ran before. Every test starts with no kernel loaded and the
# kernels on (``EASTINDIA_KERNELS=1``: compiled if not cached, never left to the games counted in the cache folder):
# its path follows from its batch and run sizes (the numpy reference below ``MIN_GAMES``), or from ``engine_path``.
@pytest.fixture(autouse=True)
def _engine_path_from_batch_size(monkeypatch):
    from sim import kernels

    monkeypatch.setattr(kernels, "_loaded", False)
    monkeypatch.setattr(kernels, "MODE", "1")
    monkeypatch.setattr(kernels, "_start", None)
    monkeypatch.setattr(kernels, "_engaged", False)


# The calibration pilots' fits are kept between runs in the cache folder (``experiments.calibration.kept``): every
# test keeps its own, so that whether a test plays a pilot never depends on the tests its worker ran before.
@pytest.fixture(autouse=True)
def _pilots_kept_per_test(monkeypatch, tmp_path_factory):
    from experiments import calibration

    folder = tmp_path_factory.mktemp("pilots_kept")
    monkeypatch.setattr(calibration, "store_dir", lambda: folder)


@pytest.fixture(params=["numpy", "kernels"])
def engine_path(request, monkeypatch):
    """Play the test on each engine path: the numpy reference (``kernels.ENABLED`` off) and the compiled kernels at
    any batch size (``MIN_GAMES`` 0). Rule files use it as ``pytestmark = pytest.mark.usefixtures("engine_path")``."""
    from sim import kernels

    if request.param == "kernels":
        if not kernels.ENABLED:
            pytest.skip("the kernels are off here (EASTINDIA_KERNELS=0 or numba missing)")
        monkeypatch.setattr(kernels, "MIN_GAMES", 0)
    else:
        monkeypatch.setattr(kernels, "ENABLED", False)
    return request.param

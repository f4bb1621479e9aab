import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))


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

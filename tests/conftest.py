"""Settings shared by every test package."""

import os

from hypothesis import HealthCheck, settings

# No per-example deadline anywhere: CI machines are slower and busier than a laptop, and a
# timing flake says nothing about correctness. In CI the search is derandomized, so a green run
# here is a green run there; locally it stays random to keep finding new inputs.
settings.register_profile(
    "ci", deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

# Every decision a test makes is recorded (shellgate.record): into a scratch state folder, never
# the user's `~/.local/state/shellgate` (a test that reads the record sets its own).
if "SHELLGATE_TEST_STATE" not in os.environ:
    import tempfile

    os.environ["SHELLGATE_TEST_STATE"] = os.environ["XDG_STATE_HOME"] = tempfile.mkdtemp(
        prefix="shellgate-state-")

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

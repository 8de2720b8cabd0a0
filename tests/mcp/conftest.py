import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "exec"))

from exec_helpers import outside, probe, workspace

__all__ = ["outside", "probe", "workspace"]

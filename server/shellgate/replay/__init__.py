"""Replay: what the user and their agents really ran, decided again by the rules on disk.

readers/ turn each tool's history files into `HistoryCommand`s (one module per format);
engine.py decides each through the same chain `shellgate explain` uses; report.py and
against.py sum the decisions up; render.py prints them. Nothing here writes or sends anything.
"""
